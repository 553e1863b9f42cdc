// Package structure holds the module's structure tests outside card: each keeps a
// duplicate deleted or a rule in its one home. It has no API.
package structure
