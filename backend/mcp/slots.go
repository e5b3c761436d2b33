package mcp

// The vault names of the hub's secrets: the install's attach token and the
// key that signs bindings. Each is made the first time the server starts or
// `clawboo mcp config` runs, whichever is first (vault.Minted with
// NewToken), and is never replaced while it cannot be read.
const (
	TokenSlot      = "CLAWBOO_MCP_TOKEN"
	BindingKeySlot = "CLAWBOO_MCP_BINDING_KEY"
)
