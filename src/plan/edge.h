/*
 * edge.h -- edge and embedded devices as their compute units, and the
 * clusters of boards `partita pipeline` plans over (SPEC section 10).
 *
 * What it does:
 *  - reads a device's compute units (data/devices.json, "units": big, mid and
 *    little CPU clusters, a GPU, NPUs/DLAs) and derives each unit's peak:
 *    a CPU cluster's is cores x GHz x (simd_bits / 32) lanes x 2 (a fused
 *    multiply-add) x fma_per_cycle in fp32, twice that in fp16 where the
 *    cores have half-precision arithmetic, four times where they have an
 *    int8 dot product (SDOT); a GPU's and an NPU's are given (tflops_fp32,
 *    tflops_fp16, tops_int8).  A device without units (a datacenter GPU) is
 *    one GPU unit of its catalog peaks;
 *  - reads a cluster for the pipeline: a built-in name or a cluster file in
 *    either SPEC form, one "device" x "devices" or "pools" of catalog devices
 *    ({"device": NAME, "devices": N}, boards filling the cluster in order);
 *    the innermost level of size 1 is the on-chip link between one board's
 *    units (else half the board's memory bandwidth, 2 us), the outermost the
 *    network between boards;
 *  - prices one layer (workload/graph.h) on one unit for a batch: its GEMMs
 *    on the roofline (cost/roofline.h) at the unit's peak in the dtype, with
 *    elem_bytes per element, element-wise bytes at the board's memory
 *    bandwidth, and the unit's per-operator overhead; on a CPU cluster with
 *    `intra` threads per operator and `inter` sub-batches run at once (the
 *    two thread pools of TensorFlow and PyTorch: intra-op and inter-op, seed
 *    paper #8, Wang et al., arXiv 1908.04705: choosing them well is worth
 *    1.29-1.38x over the vendors' recommended settings).  Each thread works
 *    on 1/intra of an operator's FLOPs, at the ramp's efficiency for that
 *    share (small operators split over many threads run slow), and each
 *    operator pays a fork-join barrier per extra thread; the sub-batches
 *    share the memory bandwidth and each reads the weights.  An NPU runs
 *    only the layer types it lists ("ops"); every other layer falls back to
 *    the unit it names ("fallback"), its input and output crossing the
 *    on-chip link.
 * Efficiency constants (fraction of peak a large GEMM reaches, the ramp, the
 * per-operator overhead) are assumptions per unit kind, not fitted:
 * PT_EDGE_*_EFF below, with where each number comes from.
 * The units of one board that run at once share its memory bandwidth
 * evenly (pt_edge_layer_bw_s).
 *  - prices what moving a tensor over the network costs a board's CPU, per
 *    byte sent or received (pt_edge_type.net_s_per_byte): the kernel's
 *    TCP/IP stack at PT_EDGE_NET_CYCLES_PER_BYTE cycles of the board's
 *    fastest CPU cluster (Foong et al., "TCP performance re-visited",
 *    ISPASS 2003: the 1 GHz per 1 Gb/s rule of thumb, 8 cycles a byte, which
 *    they find optimistic on newer cores) plus PT_EDGE_NET_COPIES copies in
 *    the framework (a tensor into a message and out of it, a layer's
 *    segments into one tensor) at one core's copy rate (PT_EDGE_COPY_FRAC
 *    of the board's memory bandwidth).  A Raspberry Pi 4: 8 / 1.5 GHz +
 *    2 x 2 / 5.5 GB/s = 6.06 ns a byte, so sending at gigabit Ethernet's
 *    117.5 MB/s keeps 0.71 of a core busy.  plan/pipeline.c charges it to
 *    the stage on the CPU cluster that runs the stack (net_unit): a stage
 *    using every core loses that time (a static thread pool waits for its
 *    slowest thread at each operator's barrier), a stage that leaves a core
 *    idle hides it there.  A device without CPU units (a datacenter GPU on
 *    RDMA) pays nothing.
 * What it does not: decide the stages (plan/pipeline.c), power or thermal
 * throttling (a Pi 4 at 80 C drops its clock; a single inference of about
 * a second does not get there, and split work heats each board less).
 */
#ifndef PT_PLAN_EDGE_H
#define PT_PLAN_EDGE_H

#include "partita.h"
#include "workload/graph.h"

/* Fraction of peak a large GEMM reaches, per unit kind (assumed):
 *  - CPU: NEON GEMM and convolution kernels (XNNPACK, Arm Compute Library)
 *    reach 60-80% of fp32 peak on big layers; 0.6 with framework overheads;
 *  - GPU: an embedded GPU under TensorRT or a mobile GPU delegate, 0.5;
 *  - NPU: DLA/Hexagon on convolution-heavy networks, 0.5. */
#define PT_EDGE_CPU_EFF 0.6
#define PT_EDGE_GPU_EFF 0.5
#define PT_EDGE_NPU_EFF 0.5
/* GEMM FLOPs at which a unit reaches half of that (per thread on a CPU). */
#define PT_EDGE_CPU_HALF_FLOP 2e6
#define PT_EDGE_GPU_HALF_FLOP 5e7
#define PT_EDGE_NPU_HALF_FLOP 2e7
/* Per-operator overhead, us: framework dispatch (CPU, eager), kernel launch
 * and synchronisation (GPU), a graph segment's dispatch (NPU). */
#define PT_EDGE_CPU_OP_US 20.0
#define PT_EDGE_GPU_OP_US 20.0
#define PT_EDGE_NPU_OP_US 50.0
/* A fork-join barrier across CPU threads, per extra thread per operator (us). */
#define PT_EDGE_CPU_SYNC_US 3.0
/* Fraction of the board's memory bandwidth streaming kernels reach. */
#define PT_EDGE_MEM_EFF 0.7
/* Fraction of a board's memory its stages may take (the OS keeps the rest). */
#define PT_EDGE_MEM_USABLE 0.9
/* The network stack's CPU work per byte sent or received (see the header):
 * cycles of the kernel's TCP/IP path (Foong et al., ISPASS 2003, 1 GHz per
 * 1 Gb/s), framework copies per byte (assumed: serialising into a message
 * and out of it, or assembling a layer's segments), and one core's copy rate
 * as a fraction of the board's memory bandwidth (a Raspberry Pi 4's
 * single-threaded STREAM Copy, 5527 MB/s of reads and writes against its
 * 12.8 GB/s: sci-pi.org.uk/bench/stream.html). */
#define PT_EDGE_NET_CYCLES_PER_BYTE 8.0
#define PT_EDGE_NET_COPIES 2.0
#define PT_EDGE_COPY_FRAC 0.43

#define PT_EDGE_MAX_UNITS 8
#define PT_EDGE_MAX_BOARDS 256
#define PT_EDGE_MAX_TYPES 8

typedef enum pt_unit_kind { PT_UNIT_CPU = 0, PT_UNIT_GPU, PT_UNIT_NPU } pt_unit_kind;
typedef enum pt_edge_dtype { PT_EDGE_FP32 = 0, PT_EDGE_FP16, PT_EDGE_INT8 } pt_edge_dtype;

typedef struct pt_edge_unit {
    char name[24];          /* "cpu-big", "gpu", "dla0"                       */
    char core[24];          /* "cortex-a72", "ampere-ga10b", "hexagon"        */
    pt_unit_kind kind;
    int cores;              /* CPU cores, e.g. 4                              */
    int simd_bits;          /* e.g. 128 (NEON)                                */
    int fma_per_cycle;      /* vector FMAs a core issues per cycle, e.g. 2    */
    double ghz;             /* e.g. 1.5                                       */
    double tflops[3];       /* peak by pt_edge_dtype, 10^12/s; 0 = cannot     */
    unsigned ops;           /* bit (1 << pt_gop) set: runs that layer type    */
    int fallback;           /* unit that runs the rest (index), -1 = none     */
} pt_edge_unit;

typedef struct pt_edge_type {
    pt_device dev;          /* the board: memory, bandwidth                   */
    int nunits;
    pt_edge_unit unit[PT_EDGE_MAX_UNITS];
    int net_unit;           /* the CPU cluster running the network stack (its
                             * fastest clock), -1 = none (RDMA, no CPU unit) */
    double net_s_per_byte;  /* its CPU seconds per byte sent or received over
                             * the network, e.g. 6.06e-9 (Pi 4); 0 = none    */
} pt_edge_type;

typedef struct pt_edge_cluster {
    char name[64];
    int ntypes;
    pt_edge_type type[PT_EDGE_MAX_TYPES];
    int nboards;
    int board_type[PT_EDGE_MAX_BOARDS]; /* board i is a type[board_type[i]]   */
    double net_Bps;         /* between boards, achieved bytes/s per direction */
    double net_latency_s;
    double chip_Bps;        /* between units of one board (shared memory)     */
    double chip_latency_s;
    char net_name[32];      /* "gbe"                                          */
    long long devices_given;/* the file's device count, e.g. 1024; more than
                             * PT_EDGE_MAX_BOARDS is refused unless resized */
} pt_edge_cluster;

/* The units of catalog device `name` into *t (dev already read): from its
 * "units" array, or one GPU unit of dev's peaks when it has none. */
pt_status pt_edge_type_builtin(const pt_device *dev, pt_edge_type *t, pt_diag *d);
/* A built-in cluster name or a cluster file (either form) into *c. */
pt_status pt_edge_cluster_load(const char *name_or_path, pt_edge_cluster *c, pt_diag *d);
/* The same from text (file names the source in messages). */
pt_status pt_edge_cluster_parse(const char *text, const char *file, pt_edge_cluster *c, pt_diag *d);
/* Resizes a one-type cluster to n boards (1..PT_EDGE_MAX_BOARDS). */
pt_status pt_edge_cluster_resize(pt_edge_cluster *c, int n, pt_diag *d);

const char *pt_edge_dtype_name(pt_edge_dtype t);
double pt_edge_elem_bytes(pt_edge_dtype t);
/* Seconds for one layer of `samples` samples on unit u of board type t:
 * intra threads per operator, inter sub-batches at once (CPU; 1 and 1
 * elsewhere); `share` of its rows (1 = all; 1/w for a segment of a layer
 * split over w boards).  INFINITY when the unit has no rate in the dtype.
 * An NPU's unsupported layer is priced on its fallback unit plus the
 * on-chip crossing (chip_Bps, chip_latency_s). */
double pt_edge_layer_s(const pt_glayer *l, const pt_edge_type *t, int u, pt_edge_dtype dt, double samples,
                       int intra, int inter, double share, double chip_Bps, double chip_latency_s);
/* The same with the unit holding bw_frac of the board's memory bandwidth
 * (0 < bw_frac <= 1: the units of one board that run at once share it). */
double pt_edge_layer_bw_s(const pt_glayer *l, const pt_edge_type *t, int u, pt_edge_dtype dt, double samples,
                          int intra, int inter, double share, double bw_frac, double chip_Bps,
                          double chip_latency_s);
/* Fills t->net_unit and t->net_s_per_byte from its units (see the header). */
void pt_edge_type_net(pt_edge_type *t);
/* Bytes of one sample of layer l's output in the dtype. */
double pt_edge_out_bytes(const pt_glayer *l, pt_edge_dtype dt);

#endif
