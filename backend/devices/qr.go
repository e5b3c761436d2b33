package devices

import (
	"encoding/base64"
	"fmt"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// QR is the pairing link as a QR code a phone's camera reads: an SVG image
// as a data: URL (the page shows it as an <img>, which its content policy
// allows), dark modules on white with the standard quiet zone.
func QR(link string) (string, error) {
	code, err := qrcode.New(link, qrcode.Medium)
	if err != nil {
		return "", fmt.Errorf("make the pairing QR code: %w", err)
	}
	bits := code.Bitmap() // with its quiet zone
	n := len(bits)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges">`, n, n)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, n, n)
	for y, row := range bits {
		for x, dark := range row {
			if dark {
				fmt.Fprintf(&b, "M%d %dh1v1h-1z", x, y)
			}
		}
	}
	b.WriteString(`"/></svg>`)
	return "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(b.String())), nil
}
