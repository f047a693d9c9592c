package keys

import (
	"github.com/mtibben/confusables"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Skeleton is the form under which two display names count as the same
// name: the case fold, then the confusable skeleton of Unicode UTS #39
// (so a Cyrillic е reads as a Latin e, a dotless ı with a diaeresis as ï,
// rn as m, 0 as O), folded again because a skeleton may hold capitals.
// Two names with one skeleton look alike on a terminal; the store keeps
// at most one of them.
func Skeleton(name string) string {
	// A Caser is stateful, hence one per call.
	folded := cases.Fold().String(norm.NFC.String(name))
	return norm.NFC.String(cases.Fold().String(confusables.Skeleton(folded)))
}
