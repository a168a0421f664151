//go:build !cuda

package cuda

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/query"
)

func TestOpenNoCUDA(t *testing.T) {
	d, err := Open(Options{})
	if d != nil || !errors.Is(err, ErrNoCUDA) || !errors.Is(err, query.ErrNoGPU) {
		t.Fatalf("Open() = %v, %v, want nil, ErrNoCUDA wrapping query.ErrNoGPU", d, err)
	}
	if want := "built without CUDA support"; !strings.Contains(err.Error(), want) {
		t.Errorf("Open() error %q does not say %q", err, want)
	}
}
