// qemu.h: a host emulation of the CUDA features that gpu/kernels/decode.cu
// and query.cu use, so that the query engine's tests can run the kernels
// on a machine without a GPU. A launch runs one real thread per CUDA
// thread of a CTA, and those threads take the CTAs one after another, so
// __shared__ variables can be plain statics. Warp primitives meet at a
// 32-thread barrier, __syncthreads at a CTA-wide one. Float intrinsics
// are single IEEE operations (compile with -ffp-contract=off).
#pragma once
#include <atomic>
#include <barrier>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

struct uint4 {
  unsigned x, y, z, w;
};
struct float4 {
  float x, y, z, w;
};
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return uint4{a, b, c, d}; }
inline float4 make_float4(float a, float b, float c, float d) { return float4{a, b, c, d}; }

struct emu_dim3 {
  unsigned x, y, z;
};
inline thread_local emu_dim3 threadIdx, blockIdx;
inline emu_dim3 blockDim, gridDim;

struct EmuWarp {
  std::barrier<> bar{32};
  unsigned long long vals[32];
};
struct EmuCTA {
  explicit EmuCTA(unsigned n) : bar(n) {}
  std::barrier<> bar;
  std::atomic<unsigned> count{0};
};
inline thread_local EmuWarp* emu_warp;
inline thread_local EmuCTA* emu_cta;
inline thread_local int emu_lane;

template <class T> T __ldg(const T* p) { return *p; }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_warp->bar.arrive_and_wait(); }
inline void __syncthreads() { emu_cta->bar.arrive_and_wait(); }
inline int __syncthreads_count(bool pred) {
  if (pred) emu_cta->count.fetch_add(1);
  emu_cta->bar.arrive_and_wait();
  int n = (int)emu_cta->count.load();
  emu_cta->bar.arrive_and_wait();
  if (threadIdx.x == 0) emu_cta->count.store(0);
  emu_cta->bar.arrive_and_wait();
  return n;
}
template <class T> T __shfl_sync(unsigned, T v, int src) {
  emu_warp->vals[emu_lane] = (unsigned long long)v;
  emu_warp->bar.arrive_and_wait();
  T r = (T)emu_warp->vals[src & 31];
  emu_warp->bar.arrive_and_wait();
  return r;
}
template <class T> T __shfl_up_sync(unsigned, T v, unsigned d) {
  emu_warp->vals[emu_lane] = (unsigned long long)v;
  emu_warp->bar.arrive_and_wait();
  T r = (unsigned)emu_lane >= d ? (T)emu_warp->vals[emu_lane - d] : v;
  emu_warp->bar.arrive_and_wait();
  return r;
}
inline unsigned __ballot_sync(unsigned, bool pred) {
  emu_warp->vals[emu_lane] = pred ? 1 : 0;
  emu_warp->bar.arrive_and_wait();
  unsigned m = 0;
  for (int l = 0; l < 32; l++)
    if (emu_warp->vals[l]) m |= 1u << l;
  emu_warp->bar.arrive_and_wait();
  return m;
}
inline unsigned atomicAdd(unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(unsigned x) { return x == 0 ? 0 : __builtin_ctz(x) + 1; }
inline int __clz(unsigned x) { return x == 0 ? 32 : __builtin_clz(x); }
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s & 31));
}
inline float __uint2float_rn(unsigned x) { return (float)x; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline unsigned __float_as_uint(float f) {
  unsigned u;
  memcpy(&u, &f, 4);
  return u;
}
inline float __uint_as_float(unsigned u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// emu_launch runs kernel (its arguments bound) on grid CTAs of block
// threads: block threads, each running its part of every CTA in turn.
inline void emu_launch(const std::function<void()>& kernel, unsigned grid, unsigned block) {
  blockDim = {block, 1, 1};
  gridDim = {grid, 1, 1};
  EmuCTA cta(block);
  std::vector<EmuWarp> warps(block / 32);
  std::vector<std::thread> ts;
  for (unsigned t = 0; t < block; t++)
    ts.emplace_back([&, t] {
      threadIdx = {t, 0, 0};
      emu_warp = &warps[t / 32];
      emu_lane = t % 32;
      emu_cta = &cta;
      for (unsigned b = 0; b < grid; b++) {
        blockIdx = {b, 0, 0};
        kernel();
        cta.bar.arrive_and_wait();
      }
    });
  for (auto& th : ts) th.join();
}
