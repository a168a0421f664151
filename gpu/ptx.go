package gpu

import "embed"

// kernelFS holds the PTX that make ptx compiles from kernels/*.cu (the
// sources are not embedded).
//
//go:embed kernels/*.ptx
var kernelFS embed.FS
