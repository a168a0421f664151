package gen

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
)

// Params are the statistics a synthetic collection is drawn from. Fit
// estimates them from a real index; `gpusearch gen fit` prints them and
// `gpusearch gen index --fit FILE` reads them back.
type Params struct {
	// ZipfS is the exponent of the head of the rank-frequency curve:
	// the expected collection frequency of the term of rank r falls as
	// r^-ZipfS up to the knee, and as r^-(1/HeapsBeta) past it.
	ZipfS float64 `json:"zipf_s"`
	// HeapsK and HeapsBeta give the expected vocabulary of a collection of
	// T tokens, K * T^beta.
	HeapsK    float64 `json:"heaps_k"`
	HeapsBeta float64 `json:"heaps_beta"`
	// LenMu and LenSigma are the mean and standard deviation of the natural
	// logarithm of document lengths (tokens).
	LenMu    float64 `json:"len_mu"`
	LenSigma float64 `json:"len_sigma"`
	// TFTail is a in the burst-size law P(X >= k) = k^-a: occurrences of a
	// term come in bursts, and a document's frequency of a term is the sum
	// of the bursts that land in it.
	TFTail float64 `json:"tf_tail"`
	// Locality is the share of a term's bursts that fall in its home sites
	// (runs of consecutive docids, as URL order groups a site's pages); the
	// rest are spread over the whole collection.
	Locality float64 `json:"locality"`
	// HomeDensity is the probability that a document of average weight in
	// one of a term's home sites holds the term (once: one burst).
	HomeDensity float64 `json:"home_density"`
	// SiteMu and SiteSigma are the mean and standard deviation of the
	// natural logarithm of site sizes (documents).
	SiteMu    float64 `json:"site_mu"`
	SiteSigma float64 `json:"site_sigma"`
}

// DefaultParams model a Gov2-like web collection: documents of about 900
// tokens on average (median 500), a classic Zipf head (s = 1), a
// vocabulary of about 26 million terms at 25 million documents, about 250
// postings per document, and a burst law and locality close to those
// fitted on the sample crawl (docs/scale.md).
func DefaultParams() Params {
	return Params{
		ZipfS:       1.0,
		HeapsK:      16,
		HeapsBeta:   0.6,
		LenMu:       math.Log(500),
		LenSigma:    1.08,
		TFTail:      1.47,
		Locality:    0.8,
		HomeDensity: 0.5,
		SiteMu:      math.Log(32),
		SiteSigma:   1.5,
	}
}

// Validate reports parameters outside the ranges the model is defined on.
func (p Params) Validate() error {
	checks := []struct {
		name   string
		v      float64
		lo, hi float64
	}{
		{"zipf_s", p.ZipfS, 0.3, 2.5},
		{"heaps_k", p.HeapsK, 0.01, 1e6},
		{"heaps_beta", p.HeapsBeta, 0.2, 0.95},
		{"len_mu", p.LenMu, 0, 15},
		{"len_sigma", p.LenSigma, 0, 4},
		{"tf_tail", p.TFTail, 0.3, 20},
		{"locality", p.Locality, 0, 1},
		{"home_density", p.HomeDensity, 0.001, maxPresence},
		{"site_mu", p.SiteMu, 0, 20},
		{"site_sigma", p.SiteSigma, 0, 4},
	}
	for _, c := range checks {
		if !(c.v >= c.lo && c.v <= c.hi) {
			return fmt.Errorf("gen: parameter %s = %v outside [%v, %v]", c.name, c.v, c.lo, c.hi)
		}
	}
	if p.ZipfS >= 1/p.HeapsBeta {
		return fmt.Errorf("gen: zipf_s = %v must be below 1/heaps_beta = %v (the head of the curve is shallower than its tail)", p.ZipfS, 1/p.HeapsBeta)
	}
	return nil
}

// ReadParams reads parameters from a JSON file: either what `gen fit`
// prints (the "params" member is used) or a bare Params object.
func ReadParams(path string) (Params, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Params{}, fmt.Errorf("gen: %w", err)
	}
	var wrapped struct {
		Params *Params `json:"params"`
	}
	if err := json.Unmarshal(b, &wrapped); err != nil {
		return Params{}, fmt.Errorf("gen: %s: %w", path, err)
	}
	var p Params
	if wrapped.Params != nil {
		p = *wrapped.Params
	} else if err := json.Unmarshal(b, &p); err != nil {
		return Params{}, fmt.Errorf("gen: %s: %w", path, err)
	}
	if p == (Params{}) {
		return Params{}, errors.New("gen: " + path + ": no parameters")
	}
	return p, p.Validate()
}
