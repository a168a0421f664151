package gpu

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"
)

// kernelFS holds gpu/kernels: the .cu sources and the .ptx that make ptx
// compiled from them (none until the first PTX is committed).
//
//go:embed kernels
var kernelFS embed.FS

// PTXDirEnv names the environment variable that, when set, makes the cuda
// build load kernels/<name>.ptx from that directory instead of the embedded
// copy: a GPU machine can compile fresh PTX and test it before it is
// committed.
const PTXDirEnv = "GPUSEARCH_PTX_DIR"

// hashPrefix starts the first line of every generated .ptx; the sha256 of
// the .cu source, in hex, follows it.
const hashPrefix = "// source-sha256: "

// loadPTX returns the PTX of the named kernel file (without extension) and
// where it came from.
func loadPTX(name string) (ptx []byte, from string, err error) {
	if dir := os.Getenv(PTXDirEnv); dir != "" {
		from = filepath.Join(dir, name+".ptx")
		ptx, err = os.ReadFile(from)
	} else {
		from = "embedded kernels/" + name + ".ptx"
		ptx, err = kernelFS.ReadFile("kernels/" + name + ".ptx")
	}
	if err != nil {
		return nil, from, fmt.Errorf("%w: %v (run make ptx, or set %s)", ErrBadPTX, err, PTXDirEnv)
	}
	return ptx, from, nil
}

// recordedHash returns the source hash in a PTX's header line.
func recordedHash(ptx []byte) (string, bool) {
	line, _, _ := bytes.Cut(ptx, []byte("\n"))
	h, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte(hashPrefix))
	if !ok || len(h) != 64 {
		return "", false
	}
	return string(h), true
}
