package toolbroker

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/mark3labs/mcp-go/mcp"
)

// checkExternalArgs validates arguments against an external tool's schema, as far
// as the broker can without a full JSON Schema engine: an object, its
// required properties present, no unknown ones when the schema closes it,
// and the declared JSON type of each top-level property. The server itself
// validates the rest.
func checkExternalArgs(schema mcp.ToolInputSchema, raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil || args == nil {
			return nil, errors.New("arguments must be a JSON object")
		}
	}
	for _, r := range schema.Required {
		if _, ok := args[r]; !ok {
			return nil, fmt.Errorf("%s is required", r)
		}
	}
	open, isBool := schema.AdditionalProperties.(bool)
	closed := isBool && !open
	for k, v := range args {
		p, known := schema.Properties[k]
		if !known {
			if closed {
				return nil, fmt.Errorf("unknown field %q", k)
			}
			continue
		}
		if m, ok := p.(map[string]any); ok {
			if t, ok := m["type"].(string); ok && !jsonHasType(v, t) {
				return nil, fmt.Errorf("%s must be of type %s", k, t)
			}
		}
	}
	return args, nil
}

func jsonHasType(v any, t string) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "null":
		return v == nil
	}
	return true
}
