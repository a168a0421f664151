//go:build !cuda

package gpu

import (
	"errors"
	"strings"
	"testing"
)

func TestOpenDeviceNoCUDA(t *testing.T) {
	d, err := OpenDevice(DeviceOptions{})
	if d != nil || !errors.Is(err, ErrNoCUDA) {
		t.Fatalf("OpenDevice() = %v, %v, want nil, ErrNoCUDA", d, err)
	}
	if want := "built without CUDA support"; !strings.Contains(err.Error(), want) {
		t.Errorf("OpenDevice() error %q does not say %q", err, want)
	}
	var dev *Device
	if _, err := dev.Alloc(16); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Alloc() error = %v, want ErrNoCUDA", err)
	}
	if err := dev.Decode(DecodeJob{}); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Decode() error = %v, want ErrNoCUDA", err)
	}
	if _, err := dev.TimeDecodes(nil); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("TimeDecodes() error = %v, want ErrNoCUDA", err)
	}
	if _, err := dev.Upload(nil); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Upload() error = %v, want ErrNoCUDA", err)
	}
}
