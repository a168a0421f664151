// Package gpu is gpusearch's CUDA back end, built on gorgonia.org/cu: it
// owns the device, keeps an index's compressed lists resident in device
// memory, decodes them with the kernels in gpu/kernels, and answers queries
// term-at-a-time on the GPU.
//
// Files that import gorgonia.org/cu carry the cuda build tag (cu's init
// exits the process on a machine without a GPU). Each has a _nocuda twin
// with the same API that returns ErrNoCUDA, so the default build compiles
// everywhere and says why a GPU request cannot be served.
package gpu
