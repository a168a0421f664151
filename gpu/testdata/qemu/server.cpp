// server.cpp: a device server for the query engine's CPU tests. It holds
// "device memory" (host allocations whose addresses are the device
// pointers) and runs the kernels of decode.cu and query.cu under qemu.h,
// as the Go test's backend asks over stdin and stdout.
//
// Requests (little-endian); every reply starts with a status byte, 0 = ok:
//   'A' u64 size                   -> u64 address (256-aligned, filled with 0xA5)
//   'F' u64 address
//   'W' u64 address, u64 n, n bytes
//   'R' u64 address, u64 n         -> n bytes
//   'M' u64 address, u32 value, u64 words
//   'L' u32 len, name, u32 grid, u32 block, u32 nargs, u64 args[nargs]
// Copies and fills must lie inside one allocation (status 1 otherwise); an
// unknown kernel or a wrong argument count is status 2.
#include "qemu.h"

#include "decode.cu"
#include "query.cu"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <type_traits>
#include <utility>

template <class T> static T arg(u64 v) {
  if constexpr (std::is_pointer_v<T>)
    return reinterpret_cast<T>(v);
  else
    return (T)v;
}

template <class... A, size_t... I> static void call(void (*k)(A...), const u64* a, std::index_sequence<I...>) {
  k(arg<A>(a[I])...);
}

struct Entry {
  size_t nargs;
  std::function<void(const u64*)> run;
};

template <class... A> static Entry entry(void (*k)(A...)) {
  return Entry{sizeof...(A), [k](const u64* a) { call(k, a, std::index_sequence_for<A...>{}); }};
}

#define K(name) {#name, entry(name)}
static const std::map<std::string, Entry> kernels = {
    K(decode_bp128_gaps),     K(decode_bp128_docids),     K(decode_bp256_gaps),     K(decode_bp256_docids),
    K(decode_vbyte128_gaps),  K(decode_vbyte128_docids),  K(decode_vbyte1024_gaps), K(decode_vbyte1024_docids),
    K(decode_pfordelta_gaps), K(decode_pfordelta_docids), K(decode_rice_gaps),      K(decode_rice_docids),
    K(decodepair_bp128),     K(decodepair_bp256),       K(decodepair_vbyte128),  K(decodepair_vbyte1024),
    K(decodepair_pfordelta), K(decodepair_rice),
    K(and_select),            K(tile_scan),               K(and_scatter_blocks),    K(and_intersect),
    K(and_scatter_survivors), K(and_score), K(and_scan),               K(or_score),              K(or_span_wave),          K(q_init),
    K(topk_hist_keys),        K(topk_hist_dense),         K(topk_pick),             K(topk_compact_keys),
    K(topk_compact_dense),    K(topk_finish),             K(isect_seg),             K(isect_hash),
    K(isect_bitmap),          K(isect_count),             K(isect_scatter),         K(topk_tree_build),
    K(topk_tree_select),      K(topk_hist_wave),        K(topk_compact_wave),     K(and_select_rows),
    K(and_step_cta),          K(and_first_bp128),         K(and_stepdec_bp128),     K(and_first_bp256),
    K(and_stepdec_bp256),     K(and_first_vbyte128),      K(and_stepdec_vbyte128),  K(and_first_vbyte1024),
    K(and_stepdec_vbyte1024), K(and_first_pfordelta),     K(and_stepdec_pfordelta), K(and_first_rice),
    K(and_stepdec_rice),      K(or_first_bp128),          K(or_first_bp256),        K(or_first_vbyte128),
    K(or_first_vbyte1024),    K(or_first_pfordelta),      K(or_first_rice),
};

static std::map<u64, u64> allocs;  // address -> size

static bool inside(u64 p, u64 n) {
  auto it = allocs.upper_bound(p);
  if (it == allocs.begin()) return false;
  --it;
  return p >= it->first && p + n <= it->first + it->second;
}

template <class T> static T get() {
  T v;
  if (fread(&v, sizeof v, 1, stdin) != 1) exit(0);
  return v;
}

static void reply(unsigned char status, const void* p = nullptr, size_t n = 0) {
  fwrite(&status, 1, 1, stdout);
  if (n > 0) fwrite(p, 1, n, stdout);
  fflush(stdout);
}

int main() {
  std::vector<char> buf;
  for (;;) {
    char op = get<char>();
    switch (op) {
      case 'A': {
        u64 size = (get<u64>() + 255) & ~255ull;
        void* p = aligned_alloc(256, size);
        memset(p, 0xA5, size);
        allocs[(u64)p] = size;
        u64 a = (u64)p;
        reply(0, &a, 8);
        break;
      }
      case 'F': {
        u64 a = get<u64>();
        if (allocs.erase(a) == 0) {
          reply(1);
          break;
        }
        free((void*)a);
        reply(0);
        break;
      }
      case 'W': {
        u64 a = get<u64>(), n = get<u64>();
        buf.resize(n);
        if (n > 0 && fread(buf.data(), 1, n, stdin) != n) return 0;
        if (!inside(a, n)) {
          reply(1);
          break;
        }
        memcpy((void*)a, buf.data(), n);
        reply(0);
        break;
      }
      case 'R': {
        u64 a = get<u64>(), n = get<u64>();
        if (!inside(a, n)) {
          reply(1);
          break;
        }
        reply(0, (const void*)a, n);
        break;
      }
      case 'M': {
        u64 a = get<u64>();
        u32 v = get<u32>();
        u64 n = get<u64>();
        if (!inside(a, 4 * n)) {
          reply(1);
          break;
        }
        for (u64 i = 0; i < n; i++) ((u32*)a)[i] = v;
        reply(0);
        break;
      }
      case 'L': {
        u32 len = get<u32>();
        std::string name(len, ' ');
        if (len > 0 && fread(name.data(), 1, len, stdin) != len) return 0;
        u32 grid = get<u32>(), block = get<u32>(), nargs = get<u32>();
        std::vector<u64> args(nargs);
        for (auto& a : args) a = get<u64>();
        auto k = kernels.find(name);
        if (k == kernels.end() || k->second.nargs != nargs || grid == 0 || block == 0 || block % 32 != 0 ||
            block > 1024) {
          reply(2);
          break;
        }
        emu_launch([&] { k->second.run(args.data()); }, grid, block);
        reply(0);
        break;
      }
      default:
        fprintf(stderr, "server: unknown request %d\n", op);
        return 2;
    }
  }
}
