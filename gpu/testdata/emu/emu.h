// emu.h: a host emulation of the CUDA features gpu/kernels/decode.cu uses,
// so that TestKernelsOnCPU can run the kernels on a machine without a GPU.
// Each CTA runs as real threads, one per CUDA thread, CTAs one after
// another; the warp primitives synchronize a warp's 32 threads with a
// barrier. The test rewrites the kernels' __shared__ arrays into heap
// arrays, so that a sanitizer or a crash catches an access past them.
#pragma once
#include <barrier>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)

struct uint4 {
  unsigned x, y, z, w;
};
inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return uint4{a, b, c, d}; }
struct emu_dim3 {
  unsigned x, y, z;
};
inline thread_local emu_dim3 threadIdx, blockIdx;
inline emu_dim3 blockDim, gridDim;

struct EmuWarp {
  std::barrier<> bar{32};
  unsigned long long vals[32];
};
inline thread_local EmuWarp* emu_warp;
inline thread_local int emu_lane;

template <class T> T __ldg(const T* p) { return *p; }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_warp->bar.arrive_and_wait(); }
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
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(unsigned x) { return x == 0 ? 0 : __builtin_ctz(x) + 1; }
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s & 31));
}

// emu_launch runs kernel k on a grid of CTAs of block threads.
template <class... A>
void emu_launch(void (*k)(A...), unsigned grid, unsigned block, A... args) {
  blockDim = {block, 1, 1};
  gridDim = {grid, 1, 1};
  for (unsigned b = 0; b < grid; b++) {
    std::vector<EmuWarp> warps(block / 32);
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < block; t++)
      ts.emplace_back([&, t] {
        threadIdx = {t, 0, 0};
        blockIdx = {b, 0, 0};
        emu_warp = &warps[t / 32];
        emu_lane = t % 32;
        k(args...);
      });
    for (auto& th : ts) th.join();
  }
}
