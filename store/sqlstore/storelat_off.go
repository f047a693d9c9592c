//go:build !storelat

package sqlstore

// logSaveTimes keeps nothing without -tags storelat (storelat_on.go).
func logSaveTimes(*Store) {}
