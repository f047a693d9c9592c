package keys

import (
	"slices"
	"strings"

	"github.com/mtibben/confusables"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// skeletonRounds bounds how often Skeleton maps a name again. The case
// fold can turn a character the confusables table leaves alone into one
// it maps (a capital whose small letter has a prototype), so a skeleton is
// mapped until it comes back to a form it had; for a few scripts that is a
// cycle rather than a fixed point (the table maps some Cherokee capitals
// to small letters, the fold maps them back).
const skeletonRounds = 8

// Skeleton is the form under which two display names look alike on a
// terminal: the confusable skeleton of Unicode UTS #39 (a Cyrillic е reads
// as a Latin e, a dotless ı with a diaeresis as ï, rn as m, 0 as O, 1 and
// a capital I as l), without the default-ignorable code points that render
// as nothing, case-folded after the skeleton is taken. The fold comes after
// because it would first turn a capital I into an i, which does not look
// like an l: aIice and alice have one skeleton. The fold alone does not
// make Skeleton blind to case (ALICE holds a capital I, alice a small i);
// FoldedSkeleton and LookAlike cover that. Skeleton(Skeleton(s)) is
// Skeleton(s).
func Skeleton(name string) string {
	s := norm.NFC.String(strings.Map(dropIgnorable, name))
	seen := []string{s}
	for range skeletonRounds {
		// A Caser is stateful, hence one per call.
		next := norm.NFC.String(cases.Fold().String(confusables.Skeleton(s)))
		if i := slices.Index(seen, next); i >= 0 {
			// A fixed point, or a cycle: its least form stands for
			// it, whichever form of it a name starts from.
			return slices.Min(seen[i:])
		}
		seen = append(seen, next)
		s = next
	}
	return s
}

// FoldedSkeleton is the Skeleton of name's case fold: the form under
// which a name looks like some spelling of another in capitals or small
// letters (ALICE and аlice with a Cyrillic а; the store compares names
// by their case fold, so both are "alice" to a player who types it).
func FoldedSkeleton(name string) string {
	return Skeleton(cases.Fold().String(name))
}

// LookAlike reports whether two display names count as one name: they
// have one Skeleton (they render alike) or one FoldedSkeleton (one renders
// like the other in other capitals). The store keeps at most one name of
// each, and reserved names are refused by it.
func LookAlike(a, b string) bool {
	return Skeleton(a) == Skeleton(b) || FoldedSkeleton(a) == FoldedSkeleton(b)
}

// dropIgnorable is a strings.Map function that removes the
// default-ignorable code points, as UTS #39 does before it maps a
// string to its skeleton: names with them are refused, but names given
// before they were may hold them.
func dropIgnorable(r rune) rune {
	if isDefaultIgnorable(r) {
		return -1
	}
	return r
}
