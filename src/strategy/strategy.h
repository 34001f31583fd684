/*
 * strategy.h -- the strategy (SPEC section 4) as data: one table of its keys
 * and everything that reads it, the rules a strategy must meet, and the
 * layouts it implies (which ranks form each parallel group, how many layers
 * each pipeline stage holds).
 *
 * The key table (strategy.c) has one row per field of pt_strategy: its name,
 * where the field is (offsetof and width), its kind, the values the strategy
 * string accepts, its PT_K_* bit, its search dimension PT_D_*, its default.
 * Row i is dimension i: a key's index in the table is its PT_D_* value, and
 * the strategy string lists the keys in the order of their PT_K_* bits.
 * The strategy string's parser and formatter, pt_strategy_resolve's
 * defaults, the search's dimensions (pt_strategy_dim), the --space/--fix
 * parser, the words --explain uses for a value and the plan JSON's strategy
 * object all read it.  A new key is a field and a PT_K_* bit in
 * include/partita.h, a PT_D_* dimension (and PT_STRATEGY_NKEYS) below and a
 * row in the table; tests/test_strategy.c does not build, or fails, when a
 * field of pt_strategy has no row.
 *
 * Dependency order of the modules: base < workload < hw < strategy < cost <
 * sim < plan < goal < validate < emit < cli (tests/e2e/layers.sh checks it up
 * to sim on the objects' symbols).  This module reads models and clusters
 * (the rules) and nothing above them; the rules' entry points
 * (pt_strategy_parse, _resolve, _check, _format, _stage_layers,
 * _moe_layout) are declared in include/partita.h.
 * Not here: what a strategy costs (src/cost) or which ones to try (src/plan).
 */
#ifndef PT_STRATEGY_H
#define PT_STRATEGY_H

#include <stddef.h>
#include <stdint.h>

#include "partita.h"

/* Largest parallel degree, micro-batch or stage layer count the strategy
 * string accepts (keeps every product of degrees in range). */
#define PT_STRATEGY_MAX_DEGREE (1 << 20)
/* Largest global batch the strategy string accepts. */
#define PT_STRATEGY_MAX_GBS INT64_C(1000000000)

/* ---- the key table ----------------------------------------------------------- */

/* What a key's value is. */
typedef enum pt_key_kind {
    PT_KEY_DEGREE = 0, /* an int parallel degree or size, 1.., e.g. tp=8, mbs=2;
                          pt_strategy_check refuses one below 1              */
    PT_KEY_INT,        /* an int with a small range, e.g. sp=1, zero=3         */
    PT_KEY_INT64,      /* an int64_t count, e.g. gbs=1536                       */
    PT_KEY_ENUM,       /* an enum written by name, e.g. schedule=1f1b           */
    PT_KEY_LAYERS      /* an int layer count where 0 means "not set" (an even
                          split): left out of the text, explained as "even",
                          e.g. pp_first=3                                      */
} pt_key_kind;

/* Number of keys (rows of the table, fields of pt_strategy). */
#define PT_STRATEGY_NKEYS 16

/* Default of a key pt_strategy_resolve derives from other keys (etp from tp,
 * dp from the device count...) rather than a constant. */
#define PT_KEY_DERIVED INT64_C(-1)

typedef struct pt_strategy_key {
    const char *name;         /* as written in the strategy string, e.g. "tp"   */
    unsigned bit;             /* its bit in a parsed string's set mask, PT_K_TP  */
    int dim;                  /* its search dimension, PT_D_TP                   */
    size_t offset, width;     /* the pt_strategy field: offsetof, sizeof (4, 8) */
    pt_key_kind kind;
    int64_t lo, hi;           /* what the strategy string accepts, e.g. 1..2^20 */
    const char *const *names; /* PT_KEY_ENUM: value names, index = value; else NULL */
    int nnames;               /* e.g. 3 for recompute                            */
    int64_t def;              /* resolve's default when not given, e.g. 1, or
                                 PT_KEY_DERIVED                                  */
} pt_strategy_key;

/* Key i, 0 <= i < PT_STRATEGY_NKEYS (i is its dimension PT_D_*), or NULL. */
const pt_strategy_key *pt_strategy_key_at(int i);
/* Index of the key named by the n characters at name, or -1. */
int pt_strategy_key_find(const char *name, size_t n);
/* Index of the key with bit (one PT_K_* value), or -1; the keys in the order
 * of the strategy string are pt_strategy_key_of_bit(1u << j), j = 0, 1, ... */
int pt_strategy_key_of_bit(unsigned bit);
/* Name of the key with bit (one PT_K_* value), e.g. "pp_first". */
const char *pt_strategy_key_name(unsigned bit);

/* The field of key i (0 <= i < PT_STRATEGY_NKEYS) as a number (enums as their
 * integer value), and setting it (v must fit the field). */
int64_t pt_strategy_get(const pt_strategy *st, int i);
void pt_strategy_set(pt_strategy *st, int i, int64_t v);

/* A value of key i as the strategy string and --explain write it: "8",
 * "full" for an enum, "even" for a PT_KEY_LAYERS 0.  Always terminated. */
void pt_strategy_key_value_text(int i, int64_t v, char *buf, size_t n);

/* ---- search dimensions and the --space / --fix syntax -------------------------- */

/* The search's dimensions, which are also the keys' indices in the table:
 * the order in which the search breaks ties between equally fast plans
 * (src/plan/search.c), which fixes its output.  A new key goes at the end. */
enum {
    PT_D_TP = 0, PT_D_PP, PT_D_DP, PT_D_CP, PT_D_VPP, PT_D_MBS, PT_D_GBS, PT_D_SP, PT_D_ZERO,
    PT_D_RECOMPUTE, PT_D_SCHEDULE, PT_D_OFFLOAD, PT_D_PP_FIRST, PT_D_PP_LAST, PT_D_EP, PT_D_ETP,
    PT_D_COUNT
};
#define PT_SPACE_MAXV 32

/* Allowed values per dimension: a list, a range lo..hi, or anything. */
typedef struct pt_space {
    int kind[PT_D_COUNT];            /* 0 any, 1 list, 2 range          */
    int n[PT_D_COUNT];
    int64_t v[PT_D_COUNT][PT_SPACE_MAXV];
    int64_t lo[PT_D_COUNT], hi[PT_D_COUNT];
} pt_space;

/* Parses "tp=4,8 pp=1..16 recompute=none,full" into *sp (on top of what it
 * holds: call pt_space_init first).  Values are whole numbers (up to 12
 * digits) or, for an enum key, its names; a range LO..HI only of numbers.
 * label names the option in errors ("--space"). */
void pt_space_init(pt_space *sp);
pt_status pt_space_parse(const char *text, const char *label, pt_space *sp, pt_diag *d);
int pt_space_allows(const pt_space *sp, int dim, int64_t value);
const char *pt_space_dim_name(int dim);
/* Pins every key in set (PT_K_* bits) to st's value: a one-value list (--fix). */
void pt_space_pin(pt_space *sp, const pt_strategy *st, unsigned set);

/* Dimension value of a strategy (enums as their integer value):
 * pt_strategy_get(st, dim). */
int64_t pt_strategy_dim(const pt_strategy *st, int dim);

/* ---- rank layout --------------------------------------------------------------- */

/* The parallel groups a rank belongs to.  Ranks are numbered in Megatron-LM's
 * order (megatron/core/parallel_state.py, RankGenerator "tp-cp-ep-dp-pp"):
 * tp varies fastest, then cp, dp, pp,
 *     rank = t + tp*(c + cp*(d + dp*p)),
 * and the experts' grid lays etp, ep, edp, pp over the same ranks,
 *     rank = u + etp*(e + ep*(x + edp*p)),  edp = tp*cp*dp / (ep*etp).
 * A group of size n and stride s holds ranks r, r+s, ..., r+(n-1)s: what the
 * collectives of src/hw (pt_coll_time) take. */
typedef enum pt_group {
    PT_GROUP_TP = 0, /* tensor parallel: size tp, stride 1                       */
    PT_GROUP_CP,     /* context parallel: size cp, stride tp                     */
    PT_GROUP_DP,     /* data parallel: size dp, stride tp*cp                     */
    PT_GROUP_DP_CP,  /* data parallel with cp folded in (gradients, ZeRO
                        shards): size dp*cp, stride tp                           */
    PT_GROUP_PP,     /* pipeline: size pp, stride tp*cp*dp                       */
    PT_GROUP_ETP,    /* tensor parallel inside experts: size etp, stride 1       */
    PT_GROUP_EP,     /* expert parallel: size ep, stride etp                     */
    PT_GROUP_EDP,    /* expert data parallel: size tp*cp*dp/(ep*etp), stride ep*etp */
    PT_GROUP_COUNT
} pt_group;

/* Ranks in one group g of st (inline: the cost model asks in its inner loop). */
static inline int64_t pt_strategy_group_size(const pt_strategy *st, pt_group g)
{
    switch (g) {
    case PT_GROUP_TP: return st->tp;
    case PT_GROUP_CP: return st->cp;
    case PT_GROUP_DP: return st->dp;
    case PT_GROUP_DP_CP: return (int64_t)st->dp * st->cp;
    case PT_GROUP_PP: return st->pp;
    case PT_GROUP_ETP: return st->etp;
    case PT_GROUP_EP: return st->ep;
    case PT_GROUP_EDP: return (int64_t)st->tp * st->cp * st->dp / ((int64_t)st->ep * st->etp);
    default: return 1;
    }
}

/* The distance in rank order between neighbours of group g: the product of
 * the sizes of the groups that vary faster. */
static inline int64_t pt_strategy_stride(const pt_strategy *st, pt_group g)
{
    switch (g) {
    case PT_GROUP_TP: return 1;
    case PT_GROUP_CP: return st->tp;
    case PT_GROUP_DP: return (int64_t)st->tp * st->cp;
    case PT_GROUP_DP_CP: return st->tp;
    case PT_GROUP_PP: return (int64_t)st->tp * st->cp * st->dp;
    case PT_GROUP_ETP: return 1;
    case PT_GROUP_EP: return st->etp;
    case PT_GROUP_EDP: return (int64_t)st->ep * st->etp;
    default: return 1;
    }
}

#endif
