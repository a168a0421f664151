package costs

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/gpusearch/gpusearch/query/schedule"
)

// ReadSamples reads a samples file (bench fit --samples, bench load
// --costs); it fails on an empty one.
func ReadSamples(path string) ([]schedule.Sample, error) {
	var samples []schedule.Sample
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("%s: no samples", path)
	}
	return samples, nil
}
