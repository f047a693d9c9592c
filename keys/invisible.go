package keys

import "unicode"

// isDefaultIgnorable reports the code points with Unicode's
// Default_Ignorable_Code_Point property: those a renderer shows as nothing
// when it does not support them, and usually when it does (variation
// selectors, joiners, the Khmer inherent vowels, the Hangul fillers, tags).
// Neither Go's unicode package nor golang.org/x/text exports the property,
// so it is derived here as DerivedCoreProperties.txt derives it, from the
// tables Go does carry: Other_Default_Ignorable_Code_Point, the format
// characters (Cf) and Variation_Selector, less White_Space, the
// interlinear annotation characters U+FFF9–U+FFFB, the Egyptian
// hieroglyph format controls U+13430–U+1343F and the
// Prepended_Concatenation_Mark characters (format characters that are
// visible).
func isDefaultIgnorable(r rune) bool {
	if !unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector) {
		return false
	}
	switch {
	case unicode.In(r, unicode.White_Space, unicode.Prepended_Concatenation_Mark):
		return false
	case r >= 0xFFF9 && r <= 0xFFFB, r >= 0x13430 && r <= 0x1343F:
		return false
	}
	return true
}
