package keys_test

import (
	"bytes"
	"errors"
	"fmt"

	"pyramid/keys"
)

func ExampleClean() {
	// A user name that tries to clear the screen and reverse the line.
	fmt.Println(keys.Clean("\x1b[2Jeve\u202Egnp.exe", 20))
	fmt.Println(keys.Clean("OpenSSH_9.2p1 Debian-2+deb12u3", 16))
	// Output:
	// \x1b[2Jeve\u202egnp…
	// OpenSSH_9.2p1 D…
}

func ExampleNormalizeName() {
	for _, name := range []string{"Zoë", "bob\u202E", "a very long name indeed", "admin"} {
		_, err := keys.NormalizeName(name)
		fmt.Println(err, errors.Is(err, keys.ErrNameFormat))
	}
	// Output:
	// <nil> false
	// invalid name: name contains an invisible formatting or bidi control character: U+202E at character 4 true
	// invalid name: name contains a character that is not allowed (use letters, digits, _ . -): U+0020 at character 2 false
	// invalid name: name is reserved false
}

func ExampleNameFromUser() {
	fmt.Println(keys.NameFromUser("Alice Smith"))
	fmt.Println(keys.NameFromUser("\x1b]52;c;aGk=\x07mallory"))
	fmt.Println(keys.NameFromUser("root"))
	// Output:
	// Alice_Smith true
	// mallory true
	//  false
}

func ExampleNewLinkCode() {
	code := keys.NewLinkCode(bytes.NewReader([]byte("deterministic")))
	fmt.Println(keys.FormatLinkCode(code))
	// What a player types is forgiving about case, dashes and look-alikes.
	fmt.Println(keys.NormalizeLinkCode("45ks-56ow"))
	// Output:
	// 45M5-JD9E
	// 45KS560W true
}
