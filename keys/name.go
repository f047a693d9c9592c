package keys

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/text/unicode/norm"
)

// MaxNameWidth is the widest a display name may be, in terminal cells.
const MaxNameWidth = 16

// maxNameBytes bounds the input that name validation normalises. A name of
// 16 narrow cells with a couple of combining marks each fits easily; anything
// longer is refused before it costs any work.
const maxNameBytes = 256

// maxMarks is how many combining marks may follow one base character.
// Precomposed forms absorb most marks under NFC; a few scripts (Vietnamese)
// need two. A long run of marks is "Zalgo" text that smears over neighbouring
// cells on most terminals.
const maxMarks = 2

// Reasons a display name is refused. NormalizeName returns them wrapped in a
// *NameError, so callers test them with errors.Is.
var (
	ErrNameEmpty      = errors.New("name is empty")
	ErrNameTooLong    = fmt.Errorf("name is longer than %d cells", MaxNameWidth)
	ErrNameEncoding   = errors.New("name is not valid UTF-8")
	ErrNameEscape     = errors.New("name contains a terminal escape sequence")
	ErrNameControl    = errors.New("name contains a control character")
	ErrNameFormat     = errors.New("name contains an invisible formatting or bidi control character")
	ErrNameInvisible  = errors.New("name contains an invisible character (a variation selector, grapheme joiner, filler or other default-ignorable code point)")
	ErrNamePrivateUse = errors.New("name contains a private-use or surrogate code point")
	ErrNameSeparator  = errors.New("name contains a line or paragraph separator")
	ErrNameCombining  = errors.New("name contains a combining mark that is not attached to a letter or digit")
	ErrNameMarks      = fmt.Errorf("name has more than %d combining marks on one character", maxMarks)
	ErrNameWide       = errors.New("name contains a character wider than one cell")
	ErrNameChar       = errors.New("name contains a character that is not allowed (use letters, digits, _ . -)")
	ErrNameNoAlnum    = errors.New("name has no letter or digit")
	ErrNameEdge       = errors.New("name must start and end with a letter or digit (ann, not ann. beside it)")
	ErrNameReserved   = errors.New("name is reserved")
)

// reservedNames are refused as display names because they would let a player
// pass for the server or its staff, and so is every name that looks like
// one of them in small letters or capitals (reserved).
var reservedNames = []string{
	"admin", "administrator", "root", "system", "server", "moderator", "mod",
	"operator", "sysop", "staff", "guest", "pyramid",
}

// GuestPrefix starts the names the server gives guest sessions
// (guest-7QK2); no player may take one, nor one that starts with a
// look-alike of it, so nobody passes for a guest.
const GuestPrefix = "guest-"

// lookAlikeForms are the forms of a name that LookAlike compares.
func lookAlikeForms(name string) [2]string {
	return [2]string{Skeleton(name), FoldedSkeleton(name)}
}

// reservedForms are the skeletons (Skeleton and FoldedSkeleton) of the
// reserved names in small letters and in capitals, and guestForms those
// of GuestPrefix: a capital I is an l to the skeleton, so ADMlN looks like
// ADMIN, a spelling of admin, but not like admin itself.
var reservedForms, guestForms = func() (map[string]bool, []string) {
	reserved := map[string]bool{}
	for _, r := range reservedNames {
		for _, spelling := range []string{r, strings.ToUpper(r)} {
			for _, f := range lookAlikeForms(spelling) {
				reserved[f] = true
			}
		}
	}
	var guest []string
	for _, spelling := range []string{GuestPrefix, strings.ToUpper(GuestPrefix)} {
		for _, f := range lookAlikeForms(spelling) {
			guest = append(guest, f)
		}
	}
	return reserved, guest
}()

// reserved reports whether name looks like a reserved name or starts
// like a guest's.
func reserved(name string) bool {
	for _, f := range lookAlikeForms(name) {
		if reservedForms[f] {
			return true
		}
		for _, g := range guestForms {
			if strings.HasPrefix(f, g) {
				return true
			}
		}
	}
	return false
}

// NameError says why a display name was refused and, when one character is
// to blame, which one and where (1-based, counted in characters).
type NameError struct {
	Err  error // one of the ErrName… sentinels
	Rune rune  // the offending character, when Pos > 0
	Pos  int   // its position, 0 when the whole name is at fault
}

// Error implements error.
func (e *NameError) Error() string {
	if e.Pos == 0 {
		return "invalid name: " + e.Err.Error()
	}
	return fmt.Sprintf("invalid name: %v: U+%04X at character %d", e.Err, e.Rune, e.Pos)
}

// Unwrap returns the sentinel, for errors.Is.
func (e *NameError) Unwrap() error { return e.Err }

// NormalizeName reports whether s is an acceptable display name and
// returns its NFC form, the form to store and compare: 1 to MaxNameWidth
// cells of width-one letters and digits plus '_', '.' and '-', with
// combining marks only on a letter or digit, after NFC normalisation.
// Control, format (bidi overrides, zero-width joiners), default-ignorable
// (variation selectors, the combining grapheme joiner, fillers),
// private-use and separator characters and terminal escape sequences are
// refused, each with its own reason and the code point to blame, and so is
// a name that looks like a reserved one (LookAlike). Whether the name
// looks like another player's is the store's to say.
func NormalizeName(s string) (string, error) {
	if s == "" {
		return "", &NameError{Err: ErrNameEmpty}
	}
	if !utf8.ValidString(s) {
		return "", &NameError{Err: ErrNameEncoding}
	}
	// The hazards are looked for over the whole input first, so that a
	// hostile name is refused for what it is rather than merely for its
	// length.
	if err := scanHazards(s); err != nil {
		return "", err
	}
	if len(s) > maxNameBytes {
		return "", &NameError{Err: ErrNameTooLong}
	}
	n := norm.NFC.String(s)
	if err := checkNameRunes(n); err != nil {
		return "", err
	}
	if ansi.StringWidth(n) > MaxNameWidth {
		return "", &NameError{Err: ErrNameTooLong}
	}
	if reserved(n) {
		return "", &NameError{Err: ErrNameReserved}
	}
	return n, nil
}

// scanHazards refuses the characters that are dangerous on a terminal, and
// runs of combining marks, anywhere in s.
func scanHazards(s string) error {
	pos, marks := 0, 0
	for _, r := range s {
		pos++
		if err := hazard(r); err != nil {
			return &NameError{Err: err, Rune: r, Pos: pos}
		}
		if unicode.Is(unicode.M, r) {
			marks++
			if marks > maxMarks {
				return &NameError{Err: ErrNameMarks, Rune: r, Pos: pos}
			}
		} else {
			marks = 0
		}
	}
	return nil
}

// hazard classifies a character that may never appear in a name, or returns
// nil.
func hazard(r rune) error {
	switch {
	case isEscapeIntroducer(r):
		return ErrNameEscape
	case unicode.Is(unicode.Cc, r):
		return ErrNameControl
	case unicode.Is(unicode.Cf, r):
		return ErrNameFormat
	case isDefaultIgnorable(r):
		// Marks among them (variation selectors, U+034F) would
		// otherwise pass as accents: alice and alice+U+FE00 render
		// alike.
		return ErrNameInvisible
	case r == utf8.RuneError:
		// U+FFFD stands where text that was not valid UTF-8 was replaced.
		return ErrNameEncoding
	case unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r):
		return ErrNamePrivateUse
	case unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
		return ErrNameSeparator
	}
	return nil
}

// checkNameRunes applies the allowlist to an NFC-normalised name.
func checkNameRunes(n string) error {
	pos, alnum := 0, false
	var prevBase bool // the previous character is a letter, digit or mark on one
	var edge rune     // the first punctuation at either end, if any
	edgePos := 0
	for _, r := range n {
		pos++
		switch {
		case unicode.Is(unicode.M, r):
			if !prevBase {
				return &NameError{Err: ErrNameCombining, Rune: r, Pos: pos}
			}
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if ansi.StringWidth(string(r)) != 1 {
				return &NameError{Err: ErrNameWide, Rune: r, Pos: pos}
			}
			alnum, prevBase = true, true
		case r == '_' || r == '.' || r == '-':
			if pos == 1 {
				edge, edgePos = r, pos
			}
			prevBase = false
		default:
			return &NameError{Err: ErrNameChar, Rune: r, Pos: pos}
		}
	}
	if !alnum {
		return &NameError{Err: ErrNameNoAlnum}
	}
	// Punctuation at an end is all that tells ann. from ann: too
	// little to tell two players apart.
	if last, _ := utf8.DecodeLastRuneInString(n); edgePos == 0 && !prevBase {
		edge, edgePos = last, pos
	}
	if edgePos > 0 {
		return &NameError{Err: ErrNameEdge, Rune: edge, Pos: edgePos}
	}
	return nil
}

// isEscapeIntroducer reports ESC and the C1 controls that start or end a
// terminal control string (CSI, OSC, DCS, SOS, PM, APC, ST).
func isEscapeIntroducer(r rune) bool {
	switch r {
	case 0x1b, 0x9b, 0x9d, 0x90, 0x98, 0x9e, 0x9f, 0x9c:
		return true
	}
	return false
}

// NameFromUser derives a default display name from an SSH user name, which
// is untrusted input. It removes escape sequences and every character a name
// may not hold, turns spaces into '_', cuts the result to MaxNameWidth cells
// and returns it with true when what is left is a valid name. Generic account
// names such as "root" are reserved and yield false.
func NameFromUser(user string) (string, bool) {
	// An SSH user name can be up to a packet long; nothing past the first
	// few hundred bytes could end up in a 16-cell name anyway.
	if len(user) > 4*maxNameBytes {
		user = user[:4*maxNameBytes]
	}
	user = strings.ToValidUTF8(user, "")
	user = norm.NFC.String(ansi.Strip(user))

	var b strings.Builder
	width, marks, prevBase := 0, 0, false
	for _, r := range user {
		if r == ' ' {
			r = '_'
		}
		switch {
		case hazard(r) != nil:
			prevBase = false
		case unicode.Is(unicode.M, r):
			// A mark stays only on a character that was kept.
			if prevBase && marks < maxMarks {
				marks++
				b.WriteRune(r)
			}
		case width == MaxNameWidth:
			// Full: only marks on the last character may still follow.
			prevBase = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			prevBase = ansi.StringWidth(string(r)) == 1
			if prevBase {
				marks = 0
				width++
				b.WriteRune(r)
			}
		case r == '_' || r == '.' || r == '-':
			prevBase = false
			width++
			b.WriteRune(r)
		default:
			prevBase = false
		}
	}
	// A name starts and ends with a letter or digit: "bob." plays as bob.
	name, err := NormalizeName(strings.Trim(b.String(), "_.-"))
	if err != nil {
		return "", false
	}
	return name, true
}

// NameRefusal says in a sentence why s is not an acceptable display name,
// naming the character to blame and where it stands, or returns "" for a
// good name. A name field shows it as the player types, instead of
// dropping or cutting what it cannot take.
func NameRefusal(s string) string {
	_, err := NormalizeName(s)
	var ne *NameError
	if err == nil || !errors.As(err, &ne) {
		return ""
	}
	switch {
	case errors.Is(ne.Err, ErrNameTooLong):
		return fmt.Sprintf("A name is at most %d characters wide; this one is %d.", MaxNameWidth, ansi.StringWidth(Clean(s, 4*MaxNameWidth)))
	case ne.Pos > 0:
		return fmt.Sprintf("Character %d (U+%04X) cannot be in a name: %s.", ne.Pos, ne.Rune, strings.TrimPrefix(ne.Err.Error(), "name contains "))
	}
	msg := ne.Err.Error()
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}
