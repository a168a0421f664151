package broker

import (
	"errors"
	"net/http"
	"strconv"
)

// handleDocument answers GET /documents/{docid} from a replica of the
// shard that holds the docid (by the docids its replicas registered),
// passing the node's answer on: the same JSON, statuses and errors.
func (b *Broker) handleDocument(w http.ResponseWriter, r *http.Request) {
	raw := r.PathValue("docid")
	id, err := strconv.ParseUint(raw, 10, 32)
	if err != nil {
		b.writeError(w, errorf(http.StatusBadRequest, "docid %q: want a non-negative integer below 2^32", raw))
		return
	}
	t := b.table.Load()
	var holder *shard
	for _, s := range t.shards {
		if uint64(s.firstDoc) <= id && id < uint64(s.firstDoc)+s.docs {
			holder = s
		}
	}
	switch {
	case holder == nil && len(t.missing()) > 0:
		b.writeError(w, errorf(http.StatusServiceUnavailable, "no document %d among the shards present; shards %s have no replica", id, ints(t.missing())))
		return
	case holder == nil:
		b.writeError(w, errorf(http.StatusNotFound, "no document %d: the collection's docids end before it", id))
		return
	}
	path := "/documents/" + raw
	if r.URL.RawQuery != "" {
		path += "?" + r.URL.RawQuery
	}
	body, _, err := b.call(r.Context(), holder, path, nil)
	var ne *nodeError
	switch {
	case errors.As(err, &ne):
		b.writeError(w, errorf(ne.status, "%s", ne.msg))
		return
	case err != nil:
		b.writeError(w, errorf(http.StatusServiceUnavailable, "shard %d did not answer: %v", holder.index, err))
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "private, no-cache")
	w.Write(body)
}
