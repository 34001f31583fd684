/*
 * test_malformed.c -- every input parser against malformed input, each case
 * with the exact line `partita` prints for it (pt_diag_format: "FILE:LINE:COL:
 * field: value what is wrong"), and PT_EINPUT (exit status 2).
 *
 * The parsers: a Hugging Face config.json (pt_hf_parse, pt_model_load), a
 * cluster file (pt_cluster_parse, pt_cluster_load), the strategy string
 * (pt_strategy_parse, then pt_strategy_resolve against llama3-8b on 64 H100s),
 * the search space (pt_space_parse, --space) and the runs CSV
 * (pt_validate_csv, pt_read_file).  The limits they hold (issue 7):
 *   - numbers that do not fit 64 bits (99999999999999999999, 1e400) are
 *     invalid JSON to jansson; a real that fits a double but not the field
 *     (1e30) is refused by the field's range;
 *   - NaN and Infinity are not JSON: jansson refuses them as invalid JSON;
 *   - nesting deeper than jansson's limit (2048) is invalid JSON, not a crash;
 *   - a file over 64 MiB is refused before it is parsed;
 *   - a cluster may have up to 2^31-1 devices: 5,000,000 devices is accepted
 *     (test_millions_of_devices) and prices in microseconds; 2^31 is refused;
 *   - a required key that is missing has no place in the text, so its
 *     message names the file and the key but no line (as before).
 * Run with PT_MALFORMED_PRINT=1 to print what each case produces (to update
 * the table when a message changes on purpose).  Runs from the repository
 * root (tests/data is a directory it names).
 */
#include <math.h>
#include <unistd.h>

#include "helpers.h"
#include "base/base.h"
#include "base/csv.h"
#include "sim/sim.h"
#include "validate/validate.h"

typedef enum kind {
    HF,           /* text -> pt_hf_parse(text, "config.json")          */
    CLUSTER,      /* text -> pt_cluster_parse(text, "cluster.json")    */
    STRATEGY,     /* text -> pt_strategy_parse                         */
    RESOLVE,      /* text -> parse, then resolve on llama3-8b x 64 H100 */
    SPACE,        /* text -> pt_space_parse(text, "--space")           */
    CSV,          /* text -> pt_validate_csv(text, "runs.csv")         */
    MODEL_PATH,   /* path -> pt_model_load                             */
    CLUSTER_PATH, /* path -> pt_cluster_load                           */
    READ_PATH     /* path -> pt_read_file (what `validate` reads with)  */
} kind;

/* Inputs too big or too odd for a literal, made at run time ($TMP is the
 * test's temporary directory). */
typedef enum gen {
    LITERAL = 0,
    DEEP_ARRAYS,   /* {"model_type": "llama", "x": [[[...100000...]]]}   */
    DEEP_OBJECTS,  /* a cluster whose "levels" nests 5000 objects       */
    HUGE_FILE,     /* $TMP/huge.json: 65 MiB                             */
    NUL_FILE,      /* $TMP/nul.json: a config with a NUL byte in it      */
    WIDE_HEADER,   /* a CSV header of 65 fields                          */
    WIDE_ROW,      /* a valid header, then a row of 65 fields            */
    LONG_NAME      /* a cluster named with 64 characters                 */
} gen;

#define L_REST                                                                          \
    "\"intermediate_size\": 14336, \"num_hidden_layers\": 32, \"num_attention_heads\": " \
    "32, \"vocab_size\": 128256, \"max_position_embeddings\": 8192"
/* a llama config in one line; hidden_size is at column 25 when it comes first */
#define LLAMA(first) "{\"model_type\": \"llama\", " first ", " L_REST "}"
/* MoE configs in one line (issue 6): mixtral with N experts, qwen3_moe and
 * deepseek_v3 (its first key at column 2) */
#define MIXTRAL_N(n, first)                                                               \
    "{\"model_type\": \"mixtral\", " first ", \"num_local_experts\": " n                 \
    ", \"hidden_size\": 4096, " L_REST "}"
#define MIXTRAL(first) MIXTRAL_N("8", first)
#define QWEN3MOE(first)                                                                   \
    "{\"model_type\": \"qwen3_moe\", " first ", \"num_experts\": 128, \"hidden_size\": " \
    "2048, \"head_dim\": 128, \"num_key_value_heads\": 4, " L_REST "}"
#define DSV3(first)                                                                        \
    "{" first ", \"model_type\": \"deepseek_v3\", \"hidden_size\": 7168, "                \
    "\"intermediate_size\": 18432, \"moe_intermediate_size\": 2048, "                       \
    "\"num_hidden_layers\": 61, \"num_attention_heads\": 128, \"n_routed_experts\": 256, " \
    "\"q_lora_rank\": 1536, \"qk_rope_head_dim\": 64, "                                    \
    "\"qk_nope_head_dim\": 128, \"v_head_dim\": 128, \"vocab_size\": 129280, "            \
    "\"max_position_embeddings\": 163840}"
#define CLU(levels, rest)                                                             \
    "{\"name\": \"c\", \"device\": \"h100-sxm-80g\", \"devices\": 16, \"levels\": " levels \
    rest "}"
#define LV2 "[{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 450}, {\"name\": \"ib\", \"size\": 16, \"bw_GBps\": 50}]"
#define HEADER                                                                               \
    "source,model,params_b,layers,hidden,heads,kv_heads,ffn_hidden,seq_len,vocab,moe_experts," \
    "moe_topk,gpu,n_gpus,tp,pp,dp,cp,ep,vpp,micro_batch,global_batch,recompute,seq_parallel,"  \
    "zero_stage,measured_metric,measured_value,notes"

typedef struct mcase {
    const char *what;
    kind k;
    gen g;
    const char *in;   /* the text or the path */
    const char *want; /* pt_diag_format of the diagnostic, exactly */
} mcase;

static const mcase cases[] = {
    /* ---- config.json ---- */
    {"empty file", HF, LITERAL, "",
     "config.json:1:1: invalid JSON: '[' or '{' expected near end of file"},
    {"truncated", HF, LITERAL, "{\"model_type\": \"llama\",",
     "config.json:1:23: invalid JSON: string or '}' expected near end of file"},
    {"NaN", HF, LITERAL, LLAMA("\"hidden_size\": NaN"),
     "config.json:1:42: invalid JSON: invalid token near 'NaN'"},
    {"Infinity", HF, LITERAL, LLAMA("\"hidden_size\": Infinity"),
     "config.json:1:47: invalid JSON: invalid token near 'Infinity'"},
    {"-Infinity", HF, LITERAL, LLAMA("\"hidden_size\": -Infinity"),
     "config.json:1:40: invalid JSON: invalid token near '-'"},
    {"integer over 64 bits", HF, LITERAL, LLAMA("\"hidden_size\": 99999999999999999999"),
     "config.json:1:59: invalid JSON: too big integer near '99999999999999999999'"},
    {"real over a double", HF, LITERAL, LLAMA("\"hidden_size\": 1e400"),
     "config.json:1:44: invalid JSON: real number overflow near '1e400'"},
    {"1e30", HF, LITERAL, LLAMA("\"hidden_size\": 1e30"),
     "config.json:1:25: hidden_size: 1e30 is larger than 2147483648"},
    {"-1e30", HF, LITERAL, LLAMA("\"hidden_size\": -1e30"),
     "config.json:1:25: hidden_size: -1e30 is not > 0"},
    {"2^63 - 1", HF, LITERAL, LLAMA("\"hidden_size\": 9223372036854775807"),
     "config.json:1:25: hidden_size: 9223372036854775807 is larger than 2147483648"},
    {"2^31 + 1", HF, LITERAL, LLAMA("\"hidden_size\": 2147483649"),
     "config.json:1:25: hidden_size: 2147483649 is larger than 2147483648"},
    {"zero", HF, LITERAL, LLAMA("\"hidden_size\": 0"),
     "config.json:1:25: hidden_size: 0 is not > 0"},
    {"negative", HF, LITERAL, LLAMA("\"hidden_size\": -4096"),
     "config.json:1:25: hidden_size: -4096 is not > 0"},
    {"fraction", HF, LITERAL, LLAMA("\"hidden_size\": 4096.5"),
     "config.json:1:25: hidden_size: 4096.5 is not a whole number"},
    {"string for a number", HF, LITERAL, LLAMA("\"hidden_size\": \"4096\""),
     "config.json:1:25: hidden_size: \"4096\" is not a whole number"},
    {"boolean for a number", HF, LITERAL, LLAMA("\"hidden_size\": true"),
     "config.json:1:25: hidden_size: true is not a whole number"},
    {"null for a required key", HF, LITERAL, LLAMA("\"hidden_size\": null"),
     "config.json:1:25: hidden_size: required key is missing"},
    {"missing key", HF, LITERAL, "{\"model_type\": \"llama\", " L_REST "}",
     "config.json: hidden_size: required key is missing"},
    {"duplicate key", HF, LITERAL, LLAMA("\"hidden_size\": 4096, \"hidden_size\": 8192"),
     "config.json:1:58: invalid JSON: duplicate object key near '\"hidden_size\"'"},
    {"heads do not divide hidden", HF, LITERAL, LLAMA("\"hidden_size\": 4100"),
     "config.json:1:99: num_attention_heads: 32 does not divide hidden_size=4100"},
    {"unknown model_type", HF, LITERAL, "{\"model_type\": \"bert\"}",
     "config.json:1:2: model_type: \"bert\" is not a supported model_type (supported: llama, "
     "mistral, qwen2, qwen3, phi3, gemma2, gemma3_text, gpt2, gpt_neox, nemotron, mpt, mixtral, "
     "qwen2_moe, qwen3_moe, deepseek_v2, deepseek_v3, deepseek_v32, glm4_moe, glm_moe_dsa, gpt_oss, kimi_k2, llama4, llama4_text, minimax_m2, nemotron_h; "
     "and the text model of gemma3 and kimi_k25)"},
    {"model_type not a string", HF, LITERAL, "{\"model_type\": 7}",
     "config.json:1:2: model_type: 7 is not a string"},
    {"no model_type", HF, LITERAL, "{\"hidden_size\": 4096}",
     "config.json: model_type: required key is missing (supported: llama, mistral, qwen2, "
     "qwen3, phi3, gemma2, gemma3_text, gpt2, gpt_neox, nemotron, mpt, mixtral, qwen2_moe, "
     "qwen3_moe, deepseek_v2, deepseek_v3, deepseek_v32, glm4_moe, glm_moe_dsa, gpt_oss, kimi_k2, llama4, llama4_text, minimax_m2, nemotron_h; "
     "and the text model of gemma3 and kimi_k25)"},
    {"gemma3 vision-language config: its text model is read", HF, LITERAL,
     "{\"model_type\": \"gemma3\", \"text_config\": {}}",
     "config.json: text_config.hidden_size: required key is missing"},
    {"kimi_k25 without its text model", HF, LITERAL, "{\"model_type\": \"kimi_k25\"}",
     "config.json: text_config: required key is missing (a kimi_k25 config holds its language model there)"},
    {"top level is an array", HF, LITERAL, "[{\"model_type\": \"llama\"}]",
     "config.json:1:1: expected a JSON object at the top level"},
    {"invalid UTF-8 in a value", HF, LITERAL, "{\"model_type\": \"ll\xff" "ama\"}",
     "config.json:1:18: invalid JSON: unable to decode byte 0xff near '\"ll'"},
    {"invalid UTF-8 in a key", HF, LITERAL, "{\"model\xc3\x28type\": \"llama\"}",
     "config.json:1:7: invalid JSON: unable to decode byte 0xc3 near '\"model'"},
    {"overlong UTF-8", HF, LITERAL, "{\"model_type\": \"\xc0\xaf\"}",
     "config.json:1:16: invalid JSON: unable to decode byte 0xc0 near '\"'"},
    {"100000 nested arrays", HF, DEEP_ARRAYS, NULL,
     "config.json:1:2077: invalid JSON: maximum parsing depth reached near '['"},
    {"escaped key, bad value", HF, LITERAL, LLAMA("\"\\u0068idden_size\": 0"),
     "config.json:1:25: hidden_size: 0 is not > 0"},
    {"activation", HF, LITERAL, LLAMA("\"hidden_size\": 4096, \"hidden_act\": \"tanh\""),
     "config.json:1:46: hidden_act: \"tanh\" is not a supported activation (silu, swiglu, gelu*, "
     "relu2)"},
    {"boolean as a string", HF, LITERAL,
     LLAMA("\"hidden_size\": 4096, \"tie_word_embeddings\": \"yes\""),
     "config.json:1:46: tie_word_embeddings: \"yes\" is not true or false"},
    {"dropout out of range", HF, LITERAL,
     LLAMA("\"hidden_size\": 4096, \"attention_dropout\": -0.1"),
     "config.json:1:46: attention_dropout: -0.1 is not a probability in [0, 1]"},
    {"mixture of experts", HF, LITERAL, LLAMA("\"hidden_size\": 4096, \"num_local_experts\": 8"),
     "config.json:1:46: num_local_experts 8: model_type \"llama\" is a dense model; a "
     "config with experts names its MoE model_type (mixture-of-experts model types: "
     "mixtral, qwen2_moe, qwen3_moe, deepseek_v2, deepseek_v3, deepseek_v32, glm4_moe, glm_moe_dsa, gpt_oss, kimi_k2, llama4, minimax_m2)"},
    /* ---- mixture-of-experts configs (issue 6) ---- */
    {"MoE: top-k over the experts", HF, LITERAL, MIXTRAL("\"num_experts_per_tok\": 9"),
     "config.json:1:27: num_experts_per_tok: 9 is more than the 8 experts "
     "(num_local_experts) a token can be routed to"},
    {"MoE: negative expert count", HF, LITERAL, MIXTRAL_N("-8", "\"num_experts_per_tok\": 2"),
     "config.json:1:53: num_local_experts: -8 is not > 0"},
    {"MoE: the default top-k over the experts", HF, LITERAL,
     "{\"model_type\": \"mixtral\", \"num_local_experts\": 1, \"hidden_size\": 4096, " L_REST "}",
     "config.json:1:27: num_local_experts: 1 is fewer than the 2 experts per token "
     "num_experts_per_tok defaults to"},
    {"MoE: zero top-k", HF, LITERAL, MIXTRAL("\"num_experts_per_tok\": 0"),
     "config.json:1:27: num_experts_per_tok: 0 is not > 0"},
    {"MoE: no expert count", HF, LITERAL,
     "{\"model_type\": \"mixtral\", \"hidden_size\": 4096, " L_REST "}",
     "config.json: num_local_experts: required key is missing (the expert count: "
     "num_local_experts, n_routed_experts, num_routed_experts or num_experts)"},
    {"MoE: negative expert width", HF, LITERAL,
     QWEN3MOE("\"moe_intermediate_size\": -768, \"mlp_only_layers\": []"),
     "config.json:1:29: moe_intermediate_size: -768 is not > 0"},
    {"MoE: dense layer out of range", HF, LITERAL,
     QWEN3MOE("\"moe_intermediate_size\": 768, \"mlp_only_layers\": [48]"),
     "config.json:1:59: mlp_only_layers: [48] holds a number out of range, not a layer "
     "number in [0, 32)"},
    {"MoE: sparse step past the last layer", HF, LITERAL,
     QWEN3MOE("\"moe_intermediate_size\": 768, \"decoder_sparse_step\": 64"),
     "config.json:1:59: decoder_sparse_step: 64 leaves no MoE layer (num_hidden_layers=32, "
     "decoder_sparse_step=64)"},
    {"MoE: expert groups do not divide the experts", HF, LITERAL, DSV3("\"n_group\": 7, \"kv_lora_rank\": 512"),
     "config.json:1:2: n_group: 7 does not divide the 256 routed experts"},
    {"MoE: every layer dense", HF, LITERAL, DSV3("\"first_k_dense_replace\": 61, \"kv_lora_rank\": 512"),
     "config.json:1:2: first_k_dense_replace: 61 leaves no MoE layer (num_hidden_layers=61, "
     "first_k_dense_replace=61, moe_layer_freq=1)"},
    {"MLA: negative kv_lora_rank", HF, LITERAL, DSV3("\"kv_lora_rank\": -512"),
     "config.json:1:2: kv_lora_rank: -512 is not > 0"},
    {"MLA: no kv_lora_rank", HF, LITERAL, DSV3("\"n_group\": 8"),
     "config.json: kv_lora_rank: required key is missing"},
    {"MoE: negative multi-token prediction", HF, LITERAL,
     DSV3("\"num_nextn_predict_layers\": -1, \"kv_lora_rank\": 512"),
     "config.json:1:2: num_nextn_predict_layers: -1 is out of range [0, 2147483648]"},
    {"expert count 2^63", HF, LITERAL,
     LLAMA("\"hidden_size\": 4096, \"num_experts\": 9223372036854775808.0"),
     "config.json:1:46: num_experts: 9.22337203685478e18 is out of range [0, 9223372036854775807]"},
    {"more than 10^15 parameters", HF, LITERAL,
     "{\"model_type\": \"llama\", \"hidden_size\": 1048576, \"intermediate_size\": 4194304, "
     "\"num_hidden_layers\": 1000, \"num_attention_heads\": 8, \"vocab_size\": 32000, "
     "\"max_position_embeddings\": 4096}",
     "config.json:1:1: the model has more than 1000000000000000 parameters "
     "(num_hidden_layers=1000, hidden_size=1048576, intermediate_size=4194304)"},
    {"mpt ffn by the default ratio", HF, LITERAL,
     "{\"model_type\": \"mpt\", \"d_model\": 764444448, \"n_heads\": 12, \"n_layers\": 2, "
     "\"max_seq_len\": 2048, \"vocab_size\": 50368}",
     "config.json:1:23: d_model: 764444448 times the default expansion_ratio 4 is larger "
     "than 2147483648"},
    {"mpt attn_config not an object", HF, LITERAL,
     "{\"model_type\": \"mpt\", \"d_model\": 768, \"n_heads\": 12, \"n_layers\": 2, "
     "\"max_seq_len\": 2048, \"vocab_size\": 50368, \"attn_config\": [1]}",
     "config.json:1:111: attn_config: [1] is not an object"},

    /* ---- config.json and cluster files by path ---- */
    {"config.json not there", MODEL_PATH, LITERAL, "$TMP/none/config.json",
     "unknown model \"$TMP/none/config.json\": not a built-in model (`partita models` lists "
     "them) and not a readable config.json (No such file or directory)"},
    {"config.json is a directory", MODEL_PATH, LITERAL, "tests/data",
     "tests/data: is a directory, not a file"},
    {"config.json of 65 MiB", MODEL_PATH, HUGE_FILE, NULL,
     "$TMP/huge.json: file is larger than 64 MiB"},
    {"config.json with a NUL byte", MODEL_PATH, NUL_FILE, NULL,
     "$TMP/nul.json: file contains a NUL byte (not text)"},
    {"cluster file not there", CLUSTER_PATH, LITERAL, "$TMP/none.json",
     "\"$TMP/none.json\" is not a built-in cluster (`partita clusters` lists them) nor a "
     "readable cluster file (cannot open: No such file or directory)"},
    {"cluster file is a directory", CLUSTER_PATH, LITERAL, "tests/data",
     "\"tests/data\" is not a built-in cluster (`partita clusters` lists them) nor a readable "
     "cluster file (is a directory, not a file)"},
    {"runs CSV not there", READ_PATH, LITERAL, "$TMP/none.csv",
     "$TMP/none.csv: cannot open: No such file or directory"},
    {"runs CSV is a directory", READ_PATH, LITERAL, "tests/data",
     "tests/data: is a directory, not a file"},

    /* ---- cluster file ---- */
    {"cluster: empty object", CLUSTER, LITERAL, "{}",
     "cluster.json: name: required key is missing"},
    {"2^31 devices", CLUSTER, LITERAL,
     "{\"name\": \"c\", \"device\": \"h100-sxm-80g\", \"devices\": 2147483648, \"levels\": "
     "[{\"name\": \"all\", \"size\": 2147483648, \"bw_GBps\": 50}]}",
     "cluster.json:1:41: devices: 2147483648 is out of range [1, 2147483647]"},
    {"devices over 64 bits", CLUSTER, LITERAL,
     "{\"name\": \"c\", \"device\": \"h100-sxm-80g\", \"devices\": 18446744073709551616}",
     "cluster.json:1:71: invalid JSON: too big integer near '18446744073709551616'"},
    {"devices 1e30", CLUSTER, LITERAL,
     "{\"name\": \"c\", \"device\": \"h100-sxm-80g\", \"devices\": 1e30, \"levels\": " LV2 "}",
     "cluster.json:1:41: devices: 1e30 is out of range [1, 2147483647]"},
    {"zero devices", CLUSTER, LITERAL,
     "{\"name\": \"c\", \"device\": \"h100-sxm-80g\", \"devices\": 0, \"levels\": " LV2 "}",
     "cluster.json:1:41: devices: 0 is out of range [1, 2147483647]"},
    {"negative devices", CLUSTER, LITERAL,
     "{\"name\": \"c\", \"device\": \"h100-sxm-80g\", \"devices\": -16, \"levels\": " LV2 "}",
     "cluster.json:1:41: devices: -16 is out of range [1, 2147483647]"},
    {"fractional devices", CLUSTER, LITERAL,
     "{\"name\": \"c\", \"device\": \"h100-sxm-80g\", \"devices\": 16.5, \"levels\": " LV2 "}",
     "cluster.json:1:41: devices: 16.5 is not a whole number"},
    {"devices as a string", CLUSTER, LITERAL,
     "{\"name\": \"c\", \"device\": \"h100-sxm-80g\", \"devices\": \"16\", \"levels\": " LV2 "}",
     "cluster.json:1:41: devices: \"16\" is not a whole number"},
    {"NaN bandwidth", CLUSTER, LITERAL,
     CLU("[{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": NaN}]", ""),
     "cluster.json:1:110: invalid JSON: invalid token near 'NaN'"},
    {"Infinity latency", CLUSTER, LITERAL,
     CLU("[{\"name\": \"nvlink\", \"size\": 16, \"bw_GBps\": 450, \"latency_us\": Infinity}]", ""),
     "cluster.json:1:135: invalid JSON: invalid token near 'Infinity'"},
    {"zero bandwidth", CLUSTER, LITERAL,
     CLU("[{\"name\": \"nvlink\", \"size\": 16, \"bw_GBps\": 0}]", ""),
     "cluster.json:1:98: levels[0].bw_GBps: 0 is not > 0"},
    {"negative latency", CLUSTER, LITERAL,
     CLU("[{\"name\": \"nvlink\", \"size\": 16, \"bw_GBps\": 450, \"latency_us\": -2}]", ""),
     "cluster.json:1:114: levels[0].latency_us: -2 is negative (must be >= 0)"},
    {"efficiency above 1", CLUSTER, LITERAL,
     CLU("[{\"name\": \"nvlink\", \"size\": 16, \"bw_GBps\": 450, \"efficiency\": 1.5}]", ""),
     "cluster.json:1:114: levels[0].efficiency: 1.5 is not a fraction in (0, 1]"},
    {"no levels", CLUSTER, LITERAL, CLU("[]", ""),
     "cluster.json:1:56: levels: [] must hold 1 to 4 levels (innermost first), not 0"},
    {"five levels", CLUSTER, LITERAL,
     CLU("[{\"name\": \"a\", \"size\": 1, \"bw_GBps\": 1}, {\"name\": \"b\", \"size\": 2, \"bw_GBps\": 1}, "
         "{\"name\": \"c\", \"size\": 4, \"bw_GBps\": 1}, {\"name\": \"d\", \"size\": 8, \"bw_GBps\": 1}, "
         "{\"name\": \"e\", \"size\": 16, \"bw_GBps\": 1}]", ""),
     "cluster.json:1:56: levels: [{\"name\":\"a\",\"size\":1,\"bw_GBps\":1},{\"name\":\"b\","
     "\"size\":2,\"bw_GBps\":1},{\"name\":\"c\",\"size\":4,\"bw_GBps\":1},{\"name\":\"d\","
     "\"size\":8,... must hold 1 to 4 levels (innermost first), not 5"},
    {"levels not an array", CLUSTER, LITERAL, CLU("{\"name\": \"nvlink\"}", ""),
     "cluster.json:1:56: levels: {\"name\":\"nvlink\"} is not an array of levels (innermost "
     "first)"},
    {"sizes not growing", CLUSTER, LITERAL,
     CLU("[{\"name\": \"nvlink\", \"size\": 16, \"bw_GBps\": 450}, {\"name\": \"ib\", \"size\": 8, "
         "\"bw_GBps\": 50}]", ""),
     "cluster.json:1:130: levels[1].size: 8 is not larger than levels[0].size=16 (levels go "
     "from the innermost domain outwards)"},
    {"size not a multiple", CLUSTER, LITERAL,
     CLU("[{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 450}, {\"name\": \"ib\", \"size\": 20, "
         "\"bw_GBps\": 50}]", ""),
     "cluster.json:1:129: levels[1].size: 20 is not a multiple of levels[0].size=8"},
    {"outermost smaller than devices", CLUSTER, LITERAL,
     CLU("[{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 450}]", ""),
     "cluster.json:1:86: levels[0].size: 8 is smaller than devices=16 (the outermost level must "
     "span the cluster)"},
    {"devices not whole nodes", CLUSTER, LITERAL,
     "{\"name\": \"c\", \"device\": \"h100-sxm-80g\", \"devices\": 12, \"levels\": " LV2 "}",
     "cluster.json:1:41: devices: 12 is not a multiple of levels[0].size=8, the size of one "
     "\"nvlink\" domain"},
    {"cluster: unknown key", CLUSTER, LITERAL, CLU(LV2, ", \"colour\": \"red\""),
     "cluster.json:1:158: colour: unknown key \"colour\" (known: name, source, device, devices, "
     "levels, price_per_device_hour, mtbf_device_hours, pools)"},
    {"unknown key in a level", CLUSTER, LITERAL,
     CLU("[{\"name\": \"nvlink\", \"size\": 16, \"bw_GBps\": 450, \"bw_gbps\": 450}]", ""),
     "cluster.json:1:114: levels[0].bw_gbps: unknown key \"bw_gbps\" (known: name, size, bw_GBps, "
     "latency_us, efficiency, unit, segment)"},
    {"unknown key with a dot", CLUSTER, LITERAL, CLU(LV2, ", \"a.b\": 1"),
     "cluster.json:1:1: a.b: unknown key \"a.b\" (known: name, source, device, devices, levels, "
     "price_per_device_hour, mtbf_device_hours, pools)"},
    {"cluster: duplicate key", CLUSTER, LITERAL, CLU(LV2, ", \"devices\": 16"),
     "cluster.json:1:166: invalid JSON: duplicate object key near '\"devices\"'"},
    {"unknown device", CLUSTER, LITERAL,
     "{\"name\": \"c\", \"device\": \"h100\", \"devices\": 16, \"levels\": " LV2 "}",
     "cluster.json:1:15: device: \"h100\" is not a built-in device (`partita devices` lists "
     "them; or give an inline device object)"},
    {"inline device without tflops", CLUSTER, LITERAL,
     "{\"name\": \"c\", \"device\": {\"name\": \"x\", \"memory_GiB\": 80, \"memory_bw_GBps\": 2000}, "
     "\"devices\": 16, \"levels\": " LV2 "}",
     "cluster.json: device.tflops: required key is missing"},
    {"inline device, negative memory", CLUSTER, LITERAL,
     "{\"name\": \"c\", \"device\": {\"name\": \"x\", \"memory_GiB\": -80, \"memory_bw_GBps\": 2000, "
     "\"tflops\": {\"bf16\": 300}}, \"devices\": 16, \"levels\": " LV2 "}",
     "cluster.json:1:39: device.memory_GiB: -80 is not > 0"},
    {"empty name", CLUSTER, LITERAL,
     "{\"name\": \"\", \"device\": \"h100-sxm-80g\", \"devices\": 16, \"levels\": " LV2 "}",
     "cluster.json:1:2: name: \"\" is empty"},
    {"name of 64 characters", CLUSTER, LONG_NAME, NULL,
     "cluster.json:1:2: name: \"cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\" "
     "is longer than 63 characters"},
    {"bandwidth 1e-300", CLUSTER, LITERAL,
     CLU("[{\"name\": \"nvlink\", \"size\": 16, \"bw_GBps\": 1e-300}]", ""),
     "cluster.json:1:98: levels[0].bw_GBps: 1e-300 is not between 1e-06 and 1e+09"},
    {"inline device, gemm_half_GFLOP 1e300", CLUSTER, LITERAL,
     "{\"name\": \"c\", \"device\": {\"name\": \"x\", \"memory_GiB\": 80, \"memory_bw_GBps\": 2000, "
     "\"tflops\": {\"bf16\": 300}, \"gemm_half_GFLOP\": 1e300}, \"devices\": 16, \"levels\": " LV2 "}",
     "cluster.json:1:106: device.gemm_half_GFLOP: 1e300 is not 0 or between 1e-06 and 1e+09"},
    {"efficiency 1e-300", CLUSTER, LITERAL,
     CLU("[{\"name\": \"nvlink\", \"size\": 16, \"bw_GBps\": 450, \"efficiency\": 1e-300}]", ""),
     "cluster.json:1:114: levels[0].efficiency: 1e-300 is not between 1e-06 and 1"},
    {"zero mtbf", CLUSTER, LITERAL, CLU(LV2, ", \"mtbf_device_hours\": 0"),
     "cluster.json:1:158: mtbf_device_hours: 0 is not > 0"},
    {"negative price", CLUSTER, LITERAL, CLU(LV2, ", \"price_per_device_hour\": -1"),
     "cluster.json:1:158: price_per_device_hour: -1 is negative (must be >= 0)"},
    {"levels nested 5000 deep", CLUSTER, DEEP_OBJECTS, NULL,
     "cluster.json:1:10246: invalid JSON: maximum parsing depth reached near '{'"},

    /* ---- strategy string ---- */
    {"degree over 64 bits", STRATEGY, LITERAL, "tp=99999999999999999999",
     "strategy:1:1: tp=99999999999999999999 must be between 1 and 1048576"},
    {"zero degree", STRATEGY, LITERAL, "pp=2 tp=0", "strategy:1:6: tp=0 must be between 1 and 1048576"},
    {"negative degree", STRATEGY, LITERAL, "tp=-1", "strategy:1:1: tp=-1 is not a whole number"},
    {"fractional degree", STRATEGY, LITERAL, "tp=1.5", "strategy:1:1: tp=1.5 is not a whole number"},
    {"hex degree", STRATEGY, LITERAL, "tp=0x8", "strategy:1:1: tp=0x8 is not a whole number"},
    {"no value", STRATEGY, LITERAL, "tp=", "strategy:1:1: tp= is not a whole number"},
    {"no =", STRATEGY, LITERAL, "tp 8",
     "strategy:1:1: \"tp\" is not key=value (keys: tp pp dp cp ep etp vpp mbs gbs sp zero "
     "recompute schedule offload pp_first pp_last)"},
    {"key twice", STRATEGY, LITERAL, "tp=4 tp=8", "strategy:1:6: tp is given twice"},
    {"strategy: unknown key", STRATEGY, LITERAL, "tp=1,foo=2",
     "strategy:1:6: unknown key \"foo\" (keys: tp pp dp cp ep etp vpp mbs gbs sp zero recompute "
     "schedule offload pp_first pp_last)"},
    {"sp=2", STRATEGY, LITERAL, "sp=2", "strategy:1:1: sp=2 must be 0 or 1"},
    {"zero=4", STRATEGY, LITERAL, "zero=4", "strategy:1:1: zero=4 must be 0, 1, 2 or 3"},
    {"gbs=0", STRATEGY, LITERAL, "gbs=0", "strategy:1:1: gbs=0 must be between 1 and 1000000000"},
    {"gbs over 10^9", STRATEGY, LITERAL, "gbs=1000000001",
     "strategy:1:1: gbs=1000000001 must be between 1 and 1000000000"},
    {"recompute", STRATEGY, LITERAL, "recompute=most",
     "strategy:1:1: recompute=most is not none, selective or full"},
    {"schedule", STRATEGY, LITERAL, "schedule=zb",
     "strategy:1:1: schedule=zb is not gpipe, 1f1b, interleaved, zb-h1, zb-v or dualpipe"},
    {"offload", STRATEGY, LITERAL, "offload=all",
     "strategy:1:1: offload=all is not none, optimizer or params"},
    {"strategy: invalid UTF-8", STRATEGY, LITERAL, "tp=\xff", "strategy:1:1: tp=\xff is not a whole number"},
    {"pp=3 on 64 devices", RESOLVE, LITERAL, "pp=3",
     "tp*pp*cp=3 does not divide the cluster's 64 devices"},
    {"tp=3 does not divide heads", RESOLVE, LITERAL, "tp=3 dp=21 gbs=504",
     "tp=3 does not divide num_attention_heads=32"},
    {"world size", RESOLVE, LITERAL, "tp=8 pp=8 dp=2",
     "tp*pp*cp*dp = 8*8*1*2 = 128 does not equal the cluster's 64 devices"},
    {"vpp without pp", RESOLVE, LITERAL, "vpp=2", "vpp=2 needs pipeline parallelism (pp > 1)"},
    {"gbs not a multiple", RESOLVE, LITERAL, "gbs=100",
     "gbs=100 is not a multiple of mbs*dp=1*64=64"},
    {"uneven stages too big", RESOLVE, LITERAL, "pp=2 pp_first=40",
     "pp_first=40 pp_last=0: the other 1 stages cannot split the remaining -8 of num_layers=32 "
     "evenly"},

    /* ---- --space ---- */
    {"space: unknown key", SPACE, LITERAL, "tq=2",
     "--space:1:1: \"tq\" is not KEY=VALUES with KEY one of tp pp dp cp vpp mbs gbs sp zero "
     "recompute schedule offload pp_first pp_last ep etp"},
    {"space: no value", SPACE, LITERAL, "pp=2 tp=",
     "--space:1:6: tp= gives no value (a list A,B,C or a range LO..HI)"},
    {"space: empty list item", SPACE, LITERAL, "tp=4,,8",
     "--space:1:1: tp=4,,8: \"\" is not a value of tp"},
    {"space: range backwards", SPACE, LITERAL, "tp=8..4",
     "--space:1:1: tp=8..4 is not a range LO..HI of whole numbers"},
    {"space: 13 digits", SPACE, LITERAL, "gbs=1234567890123",
     "--space:1:1: gbs=1234567890123: \"1234567890123\" is not a value of gbs"},
    {"space: negative", SPACE, LITERAL, "tp=-1", "--space:1:1: tp=-1: \"-1\" is not a value of tp"},
    {"space: enum range", SPACE, LITERAL, "recompute=none..full",
     "--space:1:1: recompute=none..full is not a range LO..HI of whole numbers"},
    {"space: 33 values", SPACE, LITERAL,
     "mbs=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33",
     "--space:1:1: mbs=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,"
     "28,29,30,31,32,33: more than 32 values (give a range LO..HI)"},
    {"space: enum value", SPACE, LITERAL, "schedule=1f1b,zb",
     "--space:1:1: schedule=1f1b,zb: \"zb\" is not a value of schedule"},

    /* ---- runs CSV header ---- */
    {"csv: empty file", CSV, LITERAL, "", "runs.csv:1:1: empty file: expected a header row"},
    {"csv: header lacks a column", CSV, LITERAL, "source,model,params_b\n",
     "runs.csv:1:1: header lacks the column \"layers\" (SPEC section 6)"},
    {"csv: header of 65 fields", CSV, WIDE_HEADER, NULL,
     "runs.csv:1:1: too many fields (more than 64)"},
    {"csv: row of 65 fields", CSV, WIDE_ROW, NULL, "runs.csv:3:1: too many fields (more than 64)"},
    {"csv: time-to-train header lacks a column", CSV, LITERAL, "source,workload,target\n",
     "runs.csv:1:1: header lacks the column \"system\" (SPEC section 6)"},
    {"csv: unterminated quote in the header", CSV, LITERAL, "\"source,model\n",
     "runs.csv:1:1: header lacks the column \"source\" (SPEC section 6)"},
};

#define NCASES (sizeof cases / sizeof cases[0])

static char tmpdir[64];

/* s with every "$TMP" replaced by the temporary directory, malloc'd. */
static char *subst(const char *s)
{
    size_t n = strlen(s) + 1, k = 0;
    char *out;
    for (const char *p = strstr(s, "$TMP"); p; p = strstr(p + 4, "$TMP")) n += strlen(tmpdir);
    out = malloc(n);
    assert_non_null(out);
    while (*s) {
        if (!strncmp(s, "$TMP", 4)) {
            memcpy(out + k, tmpdir, strlen(tmpdir));
            k += strlen(tmpdir);
            s += 4;
        } else {
            out[k++] = *s++;
        }
    }
    out[k] = '\0';
    return out;
}

static char *repeat(const char *head, const char *unit, size_t times, const char *tail)
{
    size_t n = strlen(head) + strlen(unit) * times + strlen(tail) + 1;
    char *t = malloc(n), *p;
    assert_non_null(t);
    p = t + strlen(head);
    memcpy(t, head, strlen(head));
    for (size_t i = 0; i < times; i++, p += strlen(unit)) memcpy(p, unit, strlen(unit));
    strcpy(p, tail);
    return t;
}

static void write_file(const char *path, const char *data, size_t n, off_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    if (size > 0) assert_int_equal(ftruncate(fileno(f), size), 0);
    assert_int_equal(fclose(f), 0);
}

/* The text or path of case c, malloc'd. */
static char *input(const mcase *c)
{
    char path[128];
    switch (c->g) {
    case LITERAL: return subst(c->in);
    case DEEP_ARRAYS: {
        char *open = repeat("{\"model_type\": \"llama\", \"x\": ", "[", 100000, "");
        char *all = repeat(open, "]", 100000, "}");
        free(open);
        return all;
    }
    case DEEP_OBJECTS: return repeat("{\"levels\":", "{\"a\":", 5000, "1");
    case HUGE_FILE:
        snprintf(path, sizeof path, "%s/huge.json", tmpdir);
        write_file(path, "{\"model_type\": \"llama\", \"x\": \"", 31, (off_t)65 << 20);
        return strdup(path);
    case NUL_FILE:
        snprintf(path, sizeof path, "%s/nul.json", tmpdir);
        write_file(path, "{\"model_type\": \"ll\0ama\"}", 24, 0);
        return strdup(path);
    case WIDE_HEADER: return repeat("", "x,", 64, "y\n");
    case WIDE_ROW: return repeat(HEADER "\nx,GPT\n", "1,", 64, "2\n");
    case LONG_NAME: return repeat("{\"name\": \"", "c", 64, "\"}");
    }
    return NULL;
}

static pt_status run_case(const mcase *c, const char *in, pt_diag *d)
{
    static pt_model llama;
    static pt_cluster h100;
    pt_model m;
    pt_cluster cl;
    pt_strategy st;
    pt_space sp;
    pt_vresult r;
    pt_job job = th_job(4096, 512, 1);
    unsigned set = 0;
    char *text = NULL;
    pt_status s = PT_OK;
    switch (c->k) {
    case HF: return pt_hf_parse(in, "config.json", &m, d);
    case CLUSTER: return pt_cluster_parse(in, "cluster.json", &cl, d);
    case STRATEGY: return pt_strategy_parse(in, &st, &set, d);
    case RESOLVE:
        if (!llama.layers) {
            llama = th_model("llama3-8b");
            h100 = th_cluster("dgx-h100", 64);
        }
        if ((s = pt_strategy_parse(in, &st, &set, d)) != PT_OK) return s;
        return pt_strategy_resolve(&st, set, &llama, &h100, &job, d);
    case SPACE:
        pt_space_init(&sp);
        return pt_space_parse(in, "--space", &sp, d);
    case CSV:
        s = pt_validate_csv(in, "runs.csv", NULL, &r, d);
        if (s == PT_OK) pt_validate_free(&r);
        return s;
    case MODEL_PATH: return pt_model_load(in, &m, d);
    case CLUSTER_PATH: return pt_cluster_load(in, &cl, d);
    case READ_PATH:
        s = pt_read_file(in, &text, d);
        free(text);
        return s;
    }
    return PT_OK;
}

static void test_malformed(void **state)
{
    int print = getenv("PT_MALFORMED_PRINT") != NULL, bad = 0;
    (void)state;
    for (size_t i = 0; i < NCASES; i++) {
        const mcase *c = &cases[i];
        char *in = input(c), *want = subst(c->want), got[1200];
        pt_diag d;
        pt_status s;
        memset(&d, 0, sizeof d);
        s = run_case(c, in, &d);
        pt_diag_format(&d, got, sizeof got);
        if (print) printf("%-40s %s\n", c->what, got);
        if (s != PT_EINPUT) {
            printf("FAIL %s: status %d, want %d (PT_EINPUT)\n", c->what, (int)s, (int)PT_EINPUT);
            bad++;
        } else if (strcmp(got, want) != 0) {
            printf("FAIL %s:\n  got  %s\n  want %s\n", c->what, got, want);
            bad++;
        }
        free(in);
        free(want);
    }
    if (bad) fail_msg("%d of %zu malformed inputs gave another status or message", bad, NCASES);
}

/* The table is the size issue 7 asks for. */
static void test_table_size(void **state)
{
    (void)state;
    assert_true(NCASES >= 50);
}

/* 5,000,000 devices is accepted (the limit is 2^31-1, an int for every
 * strategy degree); it reads, resizes and prices without overflowing. */
static void test_millions_of_devices(void **state)
{
    static const char text[] =
        "{\"name\": \"huge\", \"device\": \"h100-sxm-80g\", \"devices\": 5000000, \"levels\": "
        "[{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 450},"
        " {\"name\": \"ib\", \"size\": 5000000, \"bw_GBps\": 50}]}";
    pt_cluster c;
    pt_diag d;
    double t;
    (void)state;
    assert_int_equal(pt_cluster_parse(text, "huge.json", &c, &d), PT_OK);
    assert_int_equal(c.devices, 5000000);
    t = pt_coll_time(&c, PT_ALLREDUCE, (int64_t)1 << 30, c.devices, 1);
    assert_true(t > 0 && t < 1e3);
    assert_int_equal(pt_cluster_resize(&c, 2147483640, &d), PT_OK);
    assert_int_equal(c.devices, 2147483640);
    assert_int_equal(pt_cluster_resize(&c, (int64_t)1 << 31, &d), PT_EINPUT);
    assert_string_equal(d.msg, "devices: 2147483648 is not in [1, 2147483647]");
}

/* The library refuses huge-but-legal numbers itself (for library users and
 * the fuzzers; the CLI refuses them earlier too), naming the field and the
 * limit: --top beyond 10000 (calloc of 200000000 plans crashed), threads
 * outside 1..1024 (4294967296 ran one thread), a global batch beyond 2^30
 * (the batch list overflowed and never ended), seq_len beyond 2^24 (HFU came
 * out 114% at 2^63-1), a --space key given twice (the later one won). */
static void test_library_bounds(void **state)
{
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 16);
    pt_search_opts o = th_search_opts(200000000, 1, 64);
    pt_search_result r;
    pt_job j = th_job(2048, 64, 1);
    pt_diag d;
    pt_space sp;
    (void)state;
    assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_EINPUT);
    assert_string_equal(d.msg, "--top 200000000 is outside 1..10000");
    assert_string_equal(d.field, "top");
    o.top_k = 5, o.threads = 0;
    assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_EINPUT);
    assert_string_equal(d.msg, "--threads 0 is outside 1..1024");
    o.threads = 1025;
    assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_EINPUT);
    o.threads = 1, o.gbs_lo = 1, o.gbs_hi = (int64_t)1 << 62;
    assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_EINPUT);
    assert_string_equal(d.msg, "--global-batch 1..4611686018427387904 is not within 1..1073741824 sequences");
    /* the largest allowed range ends (its batch sizes priced on one
     * schedule and ZeRO stage: the list is what is checked, not the space) */
    o.gbs_hi = (int64_t)1 << 30;
    assert_int_equal(pt_space_parse("schedule=1f1b zero=1", "--space", &o.space, &d), PT_OK);
    assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_OK);
    pt_search_free(&r);
    o.gbs_lo = o.gbs_hi = 64;
    j.seq_len = INT64_MAX;
    assert_int_equal(pt_search(&m, &c, &j, &o, &r, &d), PT_EINPUT);
    assert_string_equal(d.msg, "seq_len=9223372036854775807 is outside 1..16777216 tokens");
    assert_string_equal(d.field, "seq_len");
    j.seq_len = 2048, j.global_batch = ((int64_t)1 << 30) + 1;
    assert_int_equal(pt_job_check(&j, &d), PT_EINPUT);
    assert_string_equal(d.msg, "global_batch=1073741825 is outside 1..1073741824 sequences");
    j.global_batch = 64;
    assert_int_equal(pt_job_check(&j, &d), PT_OK);
    /* pt_strategy_check sees the job too (eval) */
    {
        pt_strategy st;
        unsigned set;
        pt_job big = j;
        big.seq_len = (int64_t)1 << 25;
        assert_int_equal(pt_strategy_parse("tp=8", &st, &set, &d), PT_OK);
        assert_int_equal(pt_strategy_resolve(&st, set, &m, &c, &big, &d), PT_EINPUT);
        assert_string_equal(d.field, "seq_len");
    }
    pt_space_init(&sp);
    assert_int_equal(pt_space_parse("tp=2 pp=1..4 tp=4", "--space", &sp, &d), PT_EINPUT);
    assert_string_equal(d.msg, "tp is given twice (give one list A,B,C or one range LO..HI)");
    assert_int_equal(d.col, 14);
    pt_space_init(&sp);
    assert_int_equal(pt_space_parse("tp=2,4 pp=1..4", "--space", &sp, &d), PT_OK);
}

/* A step of more micro-batches than the simulator replays (65536 per
 * pipeline) is replayed for a window and extrapolated: 1F1B on 4 stages,
 * 65536 micro-batches replayed whole and 65544 extrapolated differ by what
 * the analytic model says 8 more micro-batches cost (to 1e-6 of the step),
 * and only the second says it was windowed. */
static void test_sim_window(void **state)
{
    pt_model m = th_model("llama3-8b");
    pt_cluster c = th_cluster("dgx-h100", 32);
    pt_job j = th_job(2048, 0, 1);
    pt_diag d;
    pt_strategy st = th_strategy("tp=8 pp=4 gbs=65536", &m, &c, &j);
    pt_sim_result a, b;
    pt_cost ca, cb;
    (void)state;
    pt_cost_eval(&m, &c, &j, &st, &ca);
    assert_int_equal(pt_sim_run(&m, &c, &j, &st, &a, &d), PT_OK);
    st.gbs = 65544;
    pt_cost_eval(&m, &c, &j, &st, &cb);
    assert_int_equal(pt_sim_run(&m, &c, &j, &st, &b, &d), PT_OK);
    assert_int_equal(a.window, 0);
    assert_int_equal(b.window, 65536);
    assert_int_equal(b.microbatches, 65544);
    assert_true(fabs((b.step_time_s - a.step_time_s) - (cb.step_time_s - ca.step_time_s)) < 1e-6 * a.step_time_s);
    assert_true(b.peak_bytes == a.peak_bytes); /* 1F1B: at most pp in flight */
    pt_sim_free(&a);
    pt_sim_free(&b);
}

/* Parsers take what editors write: a UTF-8 byte-order mark before a JSON
 * document or a CSV header (JSON said "syntax error", CSV "header lacks the
 * column"), CR CR LF line ends (the last header column kept a CR). */
static void test_bom_and_crcrlf(void **state)
{
    pt_csv c;
    pt_cluster cl;
    pt_diag d;
    static const char bom_cluster[] =
        "\xEF\xBB\xBF{\"name\": \"b\", \"device\": \"h100-sxm-80g\", \"devices\": 8, \"levels\": "
        "[{\"name\": \"nvlink\", \"size\": 8, \"bw_GBps\": 450}]}";
    (void)state;
    assert_int_equal(pt_cluster_parse(bom_cluster, "b.json", &cl, &d), PT_OK);
    assert_string_equal(cl.name, "b");
    /* positions count from after the mark, as without it */
    assert_int_equal(pt_cluster_parse("\xEF\xBB\xBF{\"name\": 3}", "b.json", &cl, &d), PT_EINPUT);
    assert_int_equal(d.line, 1);
    assert_int_equal(d.col, 2);
    assert_string_equal(d.msg, "name: 3 is not a string");
    pt_csv_init(&c, "\xEF\xBB\xBF" "batch,steps\r\r\n256,10\r\r\n");
    assert_int_equal(pt_csv_next(&c), 1);
    assert_int_equal(c.nf, 2);
    assert_string_equal(c.f[0], "batch");
    assert_string_equal(c.f[1], "steps");
    assert_int_equal(pt_csv_next(&c), 1);
    assert_string_equal(c.f[1], "10");
    assert_int_equal(c.record_line, 2);
    assert_int_equal(pt_csv_next(&c), 0);
    pt_csv_free(&c);
    /* a CR inside a quoted field, or not before a LF, stays data */
    pt_csv_init(&c, "\"a\r\r\nb\",c\rd\n");
    assert_int_equal(pt_csv_next(&c), 1);
    assert_string_equal(c.f[0], "a\r\r\nb");
    assert_string_equal(c.f[1], "c\rd");
    pt_csv_free(&c);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pt_malformed.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char path[128];
    (void)state;
    snprintf(path, sizeof path, "%s/huge.json", tmpdir);
    remove(path);
    snprintf(path, sizeof path, "%s/nul.json", tmpdir);
    remove(path);
    return rmdir(tmpdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_table_size),
        cmocka_unit_test(test_millions_of_devices),
        cmocka_unit_test(test_library_bounds),
        cmocka_unit_test(test_bom_and_crcrlf),
        cmocka_unit_test(test_sim_window),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
