//go:build !linux

package hugemem

// Make returns n zeroed values of T from the Go heap: huge pages are
// asked for on Linux only. n == 0 gives nil.
func Make[T any](n int) ([]T, error) {
	if _, err := span[T](n); err != nil || n == 0 {
		return nil, err
	}
	return make([]T, n), nil
}

// Free does nothing: the collector frees what Make allocated here.
func Free[T any]([]T) error { return nil }

// Total is 0: unknown here.
func Total() uint64 { return 0 }

// Available is false: huge pages are asked for on Linux only.
func Available() bool { return false }
