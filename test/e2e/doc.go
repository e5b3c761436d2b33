// Package e2e holds the end-to-end tests of the clawboo binary: TestMain
// builds it once into a temporary folder and the tests drive it as a user
// would (`serve`, `mcp config`, signals, the real CLIs), never importing its
// packages to reach behind it.
//
// It has no production code: this file exists so the package has a doc
// comment and a row in docs/architecture.md.
package e2e
