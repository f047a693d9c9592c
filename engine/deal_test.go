package engine

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if got != string(want) {
		t.Fatalf("%s differs from the golden file:\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

// TestGoldenDeals pins deals by number forever: a change to the generator
// or the shuffle fails here.
func TestGoldenDeals(t *testing.T) {
	for _, decks := range []int{1, 2} {
		for _, n := range []uint64{0, 1, 42, 1 << 32, 18446744073709551615} {
			t.Run(fmt.Sprintf("%d-%d", n, decks), func(t *testing.T) {
				d := NewDeal(n, decks)
				golden(t, fmt.Sprintf("deals/%d-%ddeck.txt", n, decks), d.Text())
				back, err := ParseDeal(d.Text())
				if err != nil {
					t.Fatalf("ParseDeal(Text()): %v", err)
				}
				if back.Line() != d.Line() || back.Decks != decks {
					t.Fatalf("round trip: got %s, want %s", back.Line(), d.Line())
				}
			})
		}
	}
}

// TestDailyNumber pins the daily deal numbers of fixed dates and checks
// that the time of day and the zone do not matter, only the UTC date.
func TestDailyNumber(t *testing.T) {
	tests := []struct {
		date string
		want uint64
	}{
		{"2026-01-01", 15159317174858830027},
		{"2026-11-30", 3200336792706784061},
		{"2027-02-28", 18058949271384621663},
		{"2028-02-29", 9689916882577500024},
	}
	for _, tt := range tests {
		day, _ := time.Parse(time.DateOnly, tt.date)
		got := DailyNumber(nil, day)
		if got != tt.want {
			t.Errorf("DailyNumber(%s): got %d, want %d", tt.date, got, tt.want)
		}
		late := day.Add(23*time.Hour + 59*time.Minute)
		if DailyNumber(nil, late) != got {
			t.Errorf("DailyNumber(%s 23:59): differs from midnight", tt.date)
		}
		tokyo := late.In(time.FixedZone("JST", 9*3600)) // already the next day in Tokyo
		if DailyNumber(nil, tokyo) != got {
			t.Errorf("DailyNumber(%s in JST): depends on the zone", tt.date)
		}
	}
	a, _ := time.Parse(time.DateOnly, "2026-11-30")
	if DailyNumber(nil, a) == DailyNumber(nil, a.AddDate(0, 0, 1)) {
		t.Error("two days share a daily deal")
	}
}

// TestShuffleUniform checks that the shuffle is not visibly biased: over
// many deals each card lands in each of a few positions about equally.
func TestShuffleUniform(t *testing.T) {
	const deals = 20000
	var counts [52][52]int
	for n := range uint64(deals) {
		for pos, c := range NewDeal(n, 1).Cards {
			counts[pos][c]++
		}
	}
	// Each cell expects deals/52 ≈ 385 (σ ≈ 19); allow 6σ.
	for _, pos := range []int{0, 27, 28, 51} {
		for c := range 52 {
			if got := counts[pos][c]; got < 270 || got > 500 {
				t.Fatalf("card %s at position %d: %d times in %d deals, want about %d", Card(c), pos, got, deals, deals/52)
			}
		}
	}
}

func TestParseDealErrors(t *testing.T) {
	single := NewDeal(5, 1)
	double := NewDeal(5, 2)
	swap := func(s, old, new string) string { return strings.Replace(s, old, new, 1) }
	tests := []struct {
		name, text, want string
	}{
		{"unknown card", swap(single.Line(), single.Cards[3].String(), "1X"), `line 1, card 4: unknown card "1X"`},
		{"unknown card line", "# header\n" + swap(single.Line(), single.Cards[0].String(), "ZZ"), `line 2, card 1: unknown card "ZZ"`},
		{"too few", strings.Join(strings.Fields(single.Line())[:51], " "), "51 cards: want 52 for one deck or 104 for two"},
		{"none", "# nothing\n", "0 cards: want 52"},
		{"too many", single.Line() + " " + single.Line() + " AS", "more than 104 cards"},
		{"duplicate", swap(single.Line(), single.Cards[10].String(), single.Cards[2].String()), fmt.Sprintf("duplicate card %s (cards 3 and 11)", single.Cards[2])},
		{"triple in a double", swap(double.Line(), double.Cards[60].String(), "AS"), "card AS appears more than twice"},
		{"missing in a double", swap(double.Line(), double.Cards[60].String(), "XX"), `unknown card "XX"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseDeal(tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
	// A double deal with a card once and another three times names one of them.
	text := swap(double.Line(), "AS", "KS")
	if _, err := ParseDeal(text); err == nil || !strings.Contains(err.Error(), "KS appears more than twice") && !strings.Contains(err.Error(), "AS appears 1 times") {
		t.Fatalf("uneven double deal: got %v", err)
	}
}

func TestParseDealForms(t *testing.T) {
	d := NewDeal(9, 1)
	lower := strings.ToLower(d.Line())
	tens := strings.ReplaceAll(d.Line(), "T", "10")
	commented := "# a comment\n" + strings.ReplaceAll(d.Line(), " ", "\t# x\n")
	for name, text := range map[string]string{"lower": lower, "tens": tens, "commented": commented} {
		got, err := ParseDeal(text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Line() != d.Line() {
			t.Fatalf("%s: got %s, want %s", name, got.Line(), d.Line())
		}
	}
	if _, err := NewGame(MustRules("double"), d); err == nil {
		t.Fatal("a single deal under double rules: want an error")
	}
	if _, err := ParseDeal(strings.Repeat(" ", MaxDealText+1)); err == nil {
		t.Fatal("oversized deal text: want an error")
	}
}

func TestCards(t *testing.T) {
	for c := range Card(52) {
		back, err := ParseCard(c.String())
		if err != nil || back != c {
			t.Fatalf("ParseCard(%s): got %v, %v", c, back, err)
		}
	}
	if c := MustCard("10h"); c.Rank() != 10 || c.Suit() != Hearts || c.RankString() != "10" || !c.Suit().Red() {
		t.Fatalf("10h: got rank %d suit %c", c.Rank(), c.Suit().Letter())
	}
	for _, bad := range []string{"", "A", "1H", "11H", "AX", "AHH", "♠A"} {
		if _, err := ParseCard(bad); err == nil {
			t.Errorf("ParseCard(%q): want an error", bad)
		}
	}
}

// TestDailyNumberOfASecret: with a server's secret the day's number is not
// the public one, depends on the secret, and is the same all day long.
func TestDailyNumberOfASecret(t *testing.T) {
	day := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	a, b := []byte("a server's secret, 32 bytes long"), []byte("another server's secret, 32 byte")
	got := DailyNumber(a, day)
	if got == DailyNumber(nil, day) {
		t.Errorf("the secret's number is the public one")
	}
	if got == DailyNumber(b, day) {
		t.Errorf("two secrets give the same number")
	}
	if DailyNumber(a, day.Add(23*time.Hour+59*time.Minute)) != got {
		t.Errorf("the secret's number changes during the day")
	}
	if DailyNumber(a, day.AddDate(0, 0, 1)) == got {
		t.Errorf("the secret's number is the same the next day")
	}
}
