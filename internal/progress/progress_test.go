package progress

import (
	"bytes"
	"strings"
	"testing"
)

func TestMeter(t *testing.T) {
	var buf bytes.Buffer
	m := Start(&buf, "indexing", 3, 3000)
	for range 3 {
		m.Add(1000)
	}
	m.Stop()
	if got := buf.String(); !strings.HasPrefix(got, "indexing: 3/3 documents, 0.0/0.0 MB") || !strings.Contains(got, "ETA 0s") {
		t.Errorf("final report = %q", got)
	}
	Start(nil, "quiet", 1, 1).Stop() // no writer: no goroutine, no output, no panic
}
