package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIndexStopsOnSignal sends SIGINT or SIGTERM to a running index: it
// must stop within about a second, say why on stderr and exit non-zero.
func TestIndexStopsOnSignal(t *testing.T) {
	// Many links to one 4 MiB file: about a minute of parsing on one core,
	// and hardly any disk.
	crawl := t.TempDir()
	dir := filepath.Join(crawl, "example.com")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	words := strings.Repeat("alpha beta gamma delta running jumps searching tables ", 4<<20/56)
	first := filepath.Join(dir, "doc0.txt")
	if err := os.WriteFile(first, []byte(words), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 200; i++ {
		if err := os.Link(first, filepath.Join(dir, fmt.Sprintf("doc%d.txt", i))); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name  string
		sig   syscall.Signal
		again bool // a second signal, once index says it is stopping, kills at once
	}{
		{"SIGINT", syscall.SIGINT, false},
		{"SIGTERM", syscall.SIGTERM, false},
		// SIGTERM, since a shell starts background jobs with SIGINT
		// ignored, and a Go program keeps an inherited ignore once it
		// stops listening: there a second SIGINT rightly does nothing.
		{"SIGTERM twice", syscall.SIGTERM, true},
	} {
		sig := tt.sig
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "idx")
			cmd := cliCommand(t, "index", "--codec", "varint-SU", "--workers", "2", "--out", out, crawl)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The first progress line says the build is parsing; stderr
			// ends when the process does.
			var log bytes.Buffer
			parsing, stopping, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
			go func() {
				defer close(ended)
				sc := bufio.NewScanner(stderr)
				seenParsing, seenStopping := false, false
				for sc.Scan() {
					if !seenParsing && strings.HasPrefix(sc.Text(), "indexing:") {
						seenParsing = true
						close(parsing)
					}
					if !seenStopping && strings.HasPrefix(sc.Text(), "gpusearch: stopping;") {
						seenStopping = true
						close(stopping)
					}
					log.WriteString(sc.Text() + "\n")
				}
			}()
			select {
			case <-parsing:
			case <-ended:
				t.Fatalf("index ended before the signal: %v\n%s", cmd.Wait(), log.String())
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				<-ended
				t.Fatalf("index printed no progress in 20 s")
			}
			start := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if tt.again {
				// Once index says it is stopping, the default action is
				// back; it may finish winding down before the second
				// signal arrives, and then there is nothing to test.
				select {
				case <-stopping:
				case <-ended:
				}
				select {
				case <-ended:
					cmd.Wait()
					t.Skip("index stopped before the second signal could be sent")
				default:
				}
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case <-ended:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-ended
				t.Fatalf("index still running 10 s after %v", sig)
			}
			took := time.Since(start)
			err = cmd.Wait()
			t.Logf("stopped %v after %v", took, sig)
			var ee *exec.ExitError
			if tt.again {
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
					t.Errorf("index after a second %v: %v, want killed by it", sig, err)
				}
				return
			}
			if !errors.As(err, &ee) || ee.ExitCode() <= 0 {
				t.Errorf("index after %v: %v, want a non-zero exit status", sig, err)
			}
			msg := log.String()
			if !strings.Contains(msg, "gpusearch: stopped: ") || !strings.Contains(msg, "signal received") {
				t.Errorf("index after %v printed %q, want it to say it stopped on a signal", sig, msg)
			}
			// A worker finishes the 4 MiB document it holds (a fraction
			// of a second; seconds on a loaded 2-core machine), far
			// from the minute the whole crawl takes.
			if took > 8*time.Second {
				t.Errorf("index took %v to stop after %v, want a few seconds at most", took, sig)
			}
		})
	}
}
