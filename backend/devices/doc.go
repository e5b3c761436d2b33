// Package devices owns the phones a person paired with this Clawboo
// (issue 30): the one-time pairing codes, the devices and their tokens,
// and the certificate the LAN listener serves. It holds no listener: the
// API turns one on and asks this package who may use it.
//
// Invariants:
//   - A pairing code is 128 random bits, shown once, kept only as its
//     SHA-256, valid for 5 minutes and burnt by its first use; 10 wrong
//     codes close the pairing window until a person opens a new one.
//   - A device token is 256 random bits handed to the device once (as a
//     cookie); only its SHA-256 is stored, and it is compared in constant
//     time. A revoked device's token stops working at once, and Revoked
//     tells the streams it holds to end.
//   - The certificate is made once (ECDSA P-256, self-signed) and kept
//     under the home with its key at mode 0600; its SHA-256 fingerprint is
//     what a person compares on the phone.
//   - Changed carries every pairing, renaming and removal (no data: a
//     reader lists the devices again); QR draws the pairing link as an
//     SVG image and holds nothing but the link.
//   - No package-level mutable state.
package devices
