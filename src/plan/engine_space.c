/*
 * engine_space.c -- what each training engine's current release can run, as
 * a search space (see search.h, pt_search_restrict_engine).
 *
 * Megatron-LM: 1F1B and interleaved schedules (the zero-bubble and DualPipe
 * schedules are not in its release), its distributed optimizer (ZeRO-1; no
 * ZeRO-2/3), optimizer CPU offload (--optimizer-cpu-offload) but no
 * parameter offload.  DeepSpeed: no context parallelism, no sequence
 * parallelism with tp, no interleaving, 1F1B, uneven stages not expressible,
 * recompute none or full.  torchtitan (FSDP2): DDP or FSDP (zero 0 or 3),
 * its pipeline schedules (GPipe, 1F1B, interleaved, ZBV, DualPipeV), even
 * stages.  Sources: the engines' flags and configs as summarised in
 * docs/reference/engines-and-formats.md sections a-c.
 * Not here: writing the launch configuration (src/emit/export.c).
 */
#include "plan/search.h"
#include "base/base.h"

#include <string.h>

static const char *const engine_space[] = {
    /* PT_ENGINE_MEGATRON */
    "schedule=1f1b,interleaved zero=0,1 offload=none,optimizer",
    /* PT_ENGINE_DEEPSPEED */
    "cp=1 sp=0 vpp=1 schedule=1f1b recompute=none,full pp_first=0 pp_last=0",
    /* PT_ENGINE_FSDP (torchtitan) */
    "zero=0,3 schedule=gpipe,1f1b,interleaved,zb-v,dualpipe pp_first=0 pp_last=0",
};

pt_status pt_search_restrict_engine(pt_search_opts *so, pt_engine e, pt_diag *d)
{
    pt_space eng;
    pt_status s;
    if ((int)e < 0 || (size_t)e >= sizeof engine_space / sizeof engine_space[0]) {
        pt_diag_set(d, NULL, "engine", NULL, "engine %d is not megatron, deepspeed or fsdp", (int)e);
        return PT_EINPUT;
    }
    pt_space_init(&eng);
    if ((s = pt_space_parse(engine_space[e], "--export", &eng, d)) != PT_OK) return s;
    for (int k = 0; k < PT_D_COUNT; k++)
        if (so->space.kind[k] == 0 && eng.kind[k] != 0) {
            so->space.kind[k] = eng.kind[k];
            so->space.n[k] = eng.n[k];
            memcpy(so->space.v[k], eng.v[k], sizeof eng.v[k]);
            so->space.lo[k] = eng.lo[k];
            so->space.hi[k] = eng.hi[k];
        }
    return PT_OK;
}
