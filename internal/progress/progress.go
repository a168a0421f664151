// Package progress prints a one-line progress report on long jobs (items
// done, MB read, MB/s, ETA) once a second to a writer, usually stderr.
package progress

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Meter counts finished items and their bytes and reports them.
type Meter struct {
	w          io.Writer
	label      string
	items      int
	totalBytes int64
	doneItems  atomic.Int64
	doneBytes  atomic.Int64
	start      time.Time
	quit       chan struct{}
	wg         sync.WaitGroup
}

// Start begins reporting on w (nothing when w is nil) a job of items
// items and totalBytes bytes; label names the job ("indexing").
func Start(w io.Writer, label string, items int, totalBytes int64) *Meter {
	m := &Meter{w: w, label: label, items: items, totalBytes: totalBytes, start: time.Now(), quit: make(chan struct{})}
	if w == nil {
		return m
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				m.print()
			case <-m.quit:
				return
			}
		}
	}()
	return m
}

// Add records one finished item of the given size. Safe for concurrent use.
func (m *Meter) Add(bytes int64) {
	m.doneItems.Add(1)
	m.doneBytes.Add(bytes)
}

// Stop ends the reports with a final line.
func (m *Meter) Stop() {
	if m.w == nil {
		return
	}
	close(m.quit)
	m.wg.Wait()
	m.print()
}

func (m *Meter) print() {
	b := m.doneBytes.Load()
	rate := float64(b) / time.Since(m.start).Seconds()
	eta := "?"
	if rate > 0 {
		eta = time.Duration(float64(m.totalBytes-b) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintf(m.w, "%s: %d/%d documents, %.1f/%.1f MB, %.1f MB/s, ETA %s\n",
		m.label, m.doneItems.Load(), m.items, float64(b)/1e6, float64(m.totalBytes)/1e6, rate/1e6, eta)
}
