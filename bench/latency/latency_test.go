package latency

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	tests := []struct {
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{nil, 0.5, 0},
		{ms(7), 0.99, 7 * time.Millisecond},
		{ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 0.95, 10 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 0.5, 5 * time.Millisecond},
		{ms(1, 2), 0.5, 1 * time.Millisecond},
		{ms(1, 2, 3, 4), 0.99, 4 * time.Millisecond},
		{ms(hundred...), 0.99, 99 * time.Millisecond},
		{ms(hundred...), 0.5, 50 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := Percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("Percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	us := func(xs ...int) []time.Duration {
		d := make([]time.Duration, len(xs))
		for i, x := range xs {
			d[i] = time.Duration(x) * time.Microsecond
		}
		return d
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // 100 down to 1
	}
	tests := []struct {
		name string
		in   []time.Duration
		want Summary
	}{
		{"empty", nil, Summary{}},
		{"one", us(7), Summary{N: 1, MeanUS: 7, P50US: 7, P90US: 7, P95US: 7, P99US: 7, MaxUS: 7}},
		{"four", us(4, 1, 3, 2), Summary{N: 4, MeanUS: 2.5, P50US: 2, P90US: 4, P95US: 4, P99US: 4, MaxUS: 4}},
		{"two", us(30, 10), Summary{N: 2, MeanUS: 20, P50US: 10, P90US: 30, P95US: 30, P99US: 30, MaxUS: 30}},
		{"hundred", us(hundred...), Summary{N: 100, MeanUS: 50.5, P50US: 50, P90US: 90, P95US: 95, P99US: 99, MaxUS: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Summarize(tt.in); got != tt.want {
				t.Errorf("Summarize(%v) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	ts := []time.Duration{5, 1, 3}
	if got := Median(ts); got != 3 {
		t.Errorf("Median(%v) = %v, want 3", ts, got)
	}
	if ts[0] != 5 {
		t.Errorf("Median sorted its argument in place")
	}
}
