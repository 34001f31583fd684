/*
 * roofline.c -- GEMM, element-wise, flash-attention and launch times on one
 * device (see roofline.h for the model and its sources).
 */
#include "cost/roofline.h"

#include <assert.h>

void pt_roofline_init(const pt_device *dev, pt_dtype dtype, pt_roofline *r)
{
    double fp8 = 1.0;
    assert(dev && r);
    /* fp8 GEMMs reach a smaller part of their peak than bf16 ones
     * (fp8_gemm_ratio, measured: data/kernels/h200/README.md): folded into
     * the fp8 rate so that one gemm_eff, fitted or calibrated, moves both. */
    if (dtype == PT_FP8 && dev->fp8_gemm_ratio > 0) fp8 = dev->fp8_gemm_ratio;
    r->peak = pt_device_tflops(dev, dtype) * 1e12 * fp8;
    r->peak16 = pt_device_tflops(dev, dtype == PT_FP8 ? PT_BF16 : dtype) * 1e12;
    r->gemm_eff = dev->gemm_eff;
    r->gemm_half = dev->gemm_half_GFLOP * 1e9;
    r->attn_eff = dev->attn_eff;
    r->mem_bw = dev->memory_bw_GBps * 1e9 * dev->mem_eff;
    r->kernel_us = dev->kernel_us;
}

double pt_roofline_gemm_s(const pt_roofline *r, double peak, double M, double N, double K, double batch,
                          double elem_bytes)
{
    double flops = 2.0 * M * N * K * batch;
    /* the ramp is a fixed time a GEMM costs (gemm_half FLOPs at the 16-bit
     * rate): at another rate the same time hides proportionally more FLOPs */
    double half = r->gemm_half * (r->peak16 > 0 ? peak / r->peak16 : 1.0);
    double eff = r->gemm_eff * flops / (flops + half);
    double tc = flops / (peak * eff);
    double tm = elem_bytes * (M * K + K * N + M * N) * batch / r->mem_bw;
    return tc > tm ? tc : tm;
}

double pt_roofline_ew_s(const pt_roofline *r, double bytes)
{
    return bytes / r->mem_bw;
}

double pt_roofline_flash_s(const pt_roofline *r, double flops, double seq)
{
    double eff = r->attn_eff * seq / (seq + PT_ROOFLINE_FLASH_HALF_SEQ);
    return flops / (r->peak16 * eff);
}

double pt_roofline_launch_s(const pt_roofline *r, double kernels)
{
    return kernels * r->kernel_us * 1e-6;
}

double pt_roofline_floor_s(const pt_roofline *r, double busy_s, double kernels)
{
    double launch = pt_roofline_launch_s(r, kernels);
    return busy_s > launch ? busy_s : launch;
}
