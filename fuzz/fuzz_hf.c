/*
 * fuzz_hf.c -- libFuzzer harness of the Hugging Face config.json reader
 * (pt_hf_parse, src/workload/hf.c).
 *
 * Each input is the text of a config.json.  On PT_OK the model must pass
 * pt_model_check (every dimension in [1, 2^31], kv_heads | heads, at most
 * 10^15 parameters) and carry a family and a name; on PT_EINPUT the diagnostic
 * must name the file and a line (fuzz.h).  No other status is allowed.
 */
#include "fuzz.h"

#define FILE_NAME "config.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_text(data, size);
    pt_model m;
    pt_diag d;
    pt_status st;
    memset(&m, 0, sizeof m);
    memset(&d, 0, sizeof d);
    st = pt_hf_parse(text, FILE_NAME, &m, &d);
    FZ_CHECK(st == PT_OK || st == PT_EINPUT);
    if (st == PT_OK) {
        int64_t p = pt_model_params(&m), lp = pt_model_layer_params(&m);
        FZ_CHECK(pt_model_check(&m, &d) == PT_OK);
        FZ_CHECK(m.layers >= 1 && m.hidden >= 1 && m.heads >= 1 && m.kv_heads >= 1);
        FZ_CHECK(m.head_dim >= 1 && m.ffn >= 1 && m.vocab >= 1 && m.max_seq >= 1);
        FZ_CHECK(m.heads % m.kv_heads == 0);
        FZ_CHECK(p > 0 && lp > 0 && lp <= p);
        FZ_CHECK(pt_model_active_params(&m) > 0 && pt_model_active_params(&m) <= p);
        FZ_CHECK(m.experts == 0 || (m.topk >= 1 && m.topk <= m.experts && m.moe_ffn >= 1));
        FZ_CHECK(m.act == PT_ACT_GELU || m.act == PT_ACT_SILU || m.act == PT_ACT_RELU2);
        FZ_CHECK(m.family[0] != '\0' && fz_terminated(m.family, sizeof m.family));
        FZ_CHECK(strcmp(m.name, FILE_NAME) == 0);
    } else {
        fz_check_diag(&d, FILE_NAME);
    }
    {
        char *twin = fz_with_bom(text);
        if (twin) {
            pt_model m2;
            pt_diag d2;
            memset(&m2, 0, sizeof m2);
            memset(&d2, 0, sizeof d2);
            FZ_CHECK(pt_hf_parse(twin, FILE_NAME, &m2, &d2) == st);
            if (st == PT_OK) FZ_CHECK(memcmp(&m, &m2, sizeof m) == 0);
            else fz_same_diag(&d, &d2);
            free(twin);
        }
    }
    free(text);
    return 0;
}
