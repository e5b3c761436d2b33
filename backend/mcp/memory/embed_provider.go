package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/clawboo/desktop/backend/redact"
)

// Provider embedders call an embedding API over HTTP. They never log and
// never put their key in an error; an error carries at most a short,
// scrubbed excerpt of the provider's answer.

const (
	// embedTimeout bounds one embedding request end to end.
	embedTimeout = 30 * time.Second
	// maxEmbedResponse bounds the body read from a provider (a batch of 32
	// vectors of 3072 floats as JSON is about 2 MiB).
	maxEmbedResponse = 16 << 20
)

// DefaultOllamaURL is where a local Ollama listens.
const DefaultOllamaURL = "http://127.0.0.1:11434"

// OllamaEmbedder embeds with a local Ollama model (POST /api/embed).
type OllamaEmbedder struct {
	base, model string
	client      *http.Client
	dim         atomic.Int64
}

// NewOllamaEmbedder embeds with model on the Ollama at baseURL
// (DefaultOllamaURL when empty).
func NewOllamaEmbedder(baseURL, model string) *OllamaEmbedder {
	if baseURL == "" {
		baseURL = DefaultOllamaURL
	}
	return &OllamaEmbedder{base: strings.TrimRight(baseURL, "/"), model: model, client: &http.Client{Timeout: embedTimeout}}
}

// ID names the model; vectors of two models are never compared.
func (e *OllamaEmbedder) ID() string { return "ollama:" + e.model }

// Dim is the length of the last vectors returned (0 before the first).
func (e *OllamaEmbedder) Dim() int { return int(e.dim.Load()) }

// Embed sends all texts in one request.
func (e *OllamaEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var out struct {
		Embeddings [][]float32 `json:"embeddings"`
		Error      string      `json:"error"`
	}
	if err := postJSON(ctx, e.client, e.base+"/api/embed", "", map[string]any{"model": e.model, "input": texts}, &out); err != nil {
		return nil, fmt.Errorf("ollama embed: %w", err)
	}
	if out.Error != "" {
		return nil, fmt.Errorf("ollama embed: %s", excerpt(out.Error))
	}
	return finishEmbed(&e.dim, out.Embeddings, len(texts))
}

// OpenAIEmbedder embeds with an OpenAI-compatible API (POST /v1/embeddings).
type OpenAIEmbedder struct {
	base, key, model string
	client           *http.Client
	dim              atomic.Int64
}

// DefaultOpenAIURL is OpenAI's API.
const DefaultOpenAIURL = "https://api.openai.com"

// NewOpenAIEmbedder embeds with model at baseURL (DefaultOpenAIURL when
// empty; a trailing "/v1" is accepted) using key as a bearer token.
func NewOpenAIEmbedder(baseURL, key, model string) *OpenAIEmbedder {
	if baseURL == "" {
		baseURL = DefaultOpenAIURL
	}
	base := strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1")
	return &OpenAIEmbedder{base: base, key: key, model: model, client: &http.Client{Timeout: embedTimeout}}
}

// ID names the model; vectors of two models are never compared.
func (e *OpenAIEmbedder) ID() string { return "openai:" + e.model }

// Dim is the length of the last vectors returned (0 before the first).
func (e *OpenAIEmbedder) Dim() int { return int(e.dim.Load()) }

// Embed sends all texts in one request and orders the answer by index.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := postJSON(ctx, e.client, e.base+"/v1/embeddings", e.key, map[string]any{"model": e.model, "input": texts}, &out); err != nil {
		return nil, fmt.Errorf("openai embed: %w", err)
	}
	sort.SliceStable(out.Data, func(i, j int) bool { return out.Data[i].Index < out.Data[j].Index })
	vecs := make([][]float32, len(out.Data))
	for i, d := range out.Data {
		if d.Index != i {
			return nil, fmt.Errorf("openai embed: answer indexes are not 0..%d", len(out.Data)-1)
		}
		vecs[i] = d.Embedding
	}
	return finishEmbed(&e.dim, vecs, len(texts))
}

// finishEmbed checks the count and records the dimension.
func finishEmbed(dim *atomic.Int64, vecs [][]float32, want int) ([][]float32, error) {
	if len(vecs) != want {
		return nil, fmt.Errorf("embed: %d vectors for %d texts", len(vecs), want)
	}
	if want > 0 {
		dim.Store(int64(len(vecs[0])))
	}
	return vecs, nil
}

// postJSON posts body and decodes a 2xx JSON answer into out. key, when
// set, goes only into the Authorization header.
func postJSON(ctx context.Context, c *http.Client, endpoint, key string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, embedTimeout)
	defer cancel()
	where := "POST " + redact.Secrets(endpoint)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%s: %s", where, excerpt(err.Error()))
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in where, scrubbed
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxEmbedResponse+1))
	if err != nil {
		return fmt.Errorf("%s: read answer: %w", where, err)
	}
	if len(data) > maxEmbedResponse {
		return fmt.Errorf("%s: answer larger than %d bytes", where, maxEmbedResponse)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s: %s", where, resp.Status, excerpt(string(data)))
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: decode answer: %w", where, err)
	}
	return nil
}

// excerpt is a short, scrubbed piece of a provider's answer for an error.
func excerpt(s string) string {
	s = redact.Secrets(strings.TrimSpace(s))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
