package memory

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"
)

// Embedder turns text into vectors for Memory's vector search. The host
// configures one (the offline HashEmbedder when none); an implementation
// must be safe for concurrent use.
//
// Invariants an implementation keeps:
//   - Embed returns exactly one vector per text, in order, all of the same
//     length; an error means none of them is usable.
//   - ID names the model and its version: two vectors are compared only
//     when their IDs are equal, so an ID must change whenever the vectors
//     it makes would stop being comparable with the old ones.
//   - Dim is the vector length, or 0 while it is not known yet (a provider
//     learns it from its first answer).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	ID() string
	Dim() int
}

// maxEmbedDim bounds the vectors accepted from any embedder (the largest
// common models make 3072).
const maxEmbedDim = 8192

// providerBackoff is how long a failed provider is skipped before it is
// tried again, so a dead endpoint costs one timeout per period rather than
// one per save.
const providerBackoff = 30 * time.Second

// embedders pairs the configured embedder with the offline one it falls
// back to. Every vector it returns is L2-normalised and labelled with the
// ID of the embedder that really made it.
type embedders struct {
	primary Embedder
	offline *HashEmbedder
	now     func() time.Time
	log     *slog.Logger

	mu        sync.Mutex
	downUntil time.Time
}

func newEmbedders(primary Embedder, now func() time.Time, log *slog.Logger) *embedders {
	off := NewHashEmbedder()
	if primary == nil {
		primary = off
	}
	return &embedders{primary: primary, offline: off, now: now, log: log}
}

// hasProvider reports whether the primary is something other than the
// offline embedder.
func (e *embedders) hasProvider() bool { return e.primary.ID() != e.offline.ID() }

// primaryUp reports whether the primary may be tried now.
func (e *embedders) primaryUp() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return !e.now().Before(e.downUntil)
}

// tryPrimary embeds with the primary, or fails at once while it is in
// backoff. A failure starts a backoff.
func (e *embedders) tryPrimary(ctx context.Context, texts []string) ([][]float32, error) {
	if !e.primaryUp() {
		return nil, errors.New("embedder in backoff after a failure")
	}
	vecs, err := checkVectors(e.primary.Embed(ctx, texts))
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	if err != nil {
		e.mu.Lock()
		e.downUntil = e.now().Add(providerBackoff)
		e.mu.Unlock()
		e.log.Warn("memory: embedder failed; using the offline embedder", "embedder", e.primary.ID(), "err", err)
		return nil, err
	}
	return vecs, nil
}

// embed embeds texts with the primary, falling back to the offline
// embedder when the primary fails; id is the embedder that made them.
func (e *embedders) embed(ctx context.Context, texts []string) (vecs [][]float32, id string) {
	if e.hasProvider() {
		if vecs, err := e.tryPrimary(ctx, texts); err == nil {
			return vecs, e.primary.ID()
		}
	}
	vecs, _ = e.offline.Embed(ctx, texts) // never fails
	return vecs, e.offline.ID()
}

// checkVectors validates an embedder's answer and L2-normalises it.
func checkVectors(vecs [][]float32, err error) ([][]float32, error) {
	if err != nil {
		return nil, err
	}
	for i, v := range vecs {
		if len(v) == 0 || len(v) > maxEmbedDim || len(v) != len(vecs[0]) {
			return nil, fmt.Errorf("embedder returned a vector of length %d (first %d)", len(v), len(vecs[0]))
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, errors.New("embedder returned a non-finite value")
			}
		}
		vecs[i] = normalize(v)
	}
	return vecs, nil
}

// normalize scales v to unit length in place (a zero vector stays zero).
func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := 1 / math.Sqrt(sum)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return v
}

// dot is the cosine similarity of two unit vectors of equal length.
func dot(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}

// encodeVector is the BLOB form: little-endian float32.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector reads a BLOB written by encodeVector into dst (reused when
// large enough); a BLOB of the wrong size is an error.
func decodeVector(b []byte, dim int, dst []float32) ([]float32, error) {
	if dim <= 0 || len(b) != 4*dim {
		return nil, fmt.Errorf("vector of %d bytes for dimension %d", len(b), dim)
	}
	if cap(dst) < dim {
		dst = make([]float32, dim)
	}
	dst = dst[:dim]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return dst, nil
}
