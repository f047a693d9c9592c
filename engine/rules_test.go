package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestMoveLegality checks, rule by rule, what is legal and what is not.
// Each case cites the sentence it checks of one of the rule pages that
// docs/rules.md names as its sources (by their numbers there).
func TestMoveLegality(t *testing.T) {
	tests := []struct {
		name  string
		seed  string // the sentence of the seed the case checks
		spec  string
		deal  string
		setup string
		move  string
		want  error // nil: legal
	}{
		{"free king alone", `000: "Un rey vale 13: selecciónalo una vez para retirarlo sin pareja."`,
			"classic", baseDeal, "", "7.1", nil},
		{"covered king", `000: "Solo puedes usar cartas que no estén cubiertas por otras."`,
			"classic", baseDeal, "", "6.1", ErrCovered},
		{"king freed when both coverers go", `004: "Para exponer una nueva carta y ponerla en juego, el jugador debe retirar todas las cartas que la solapan."`,
			"classic", baseDeal, "7.1", "6.1", ErrCovered},
		{"king free after both coverers", `004: "Para exponer una nueva carta y ponerla en juego, el jugador debe retirar todas las cartas que la solapan."`,
			"classic", baseDeal, "7.1 7.2+7.3", "6.1", nil},
		{"six and seven", `000: "Las parejas posibles son A + Q, 2 + J, 3 + 10, 4 + 9, 5 + 8 y 6 + 7."`,
			"classic", baseDeal, "", "7.2+7.3", nil},
		{"ace and queen", `000: "Una Q puede combinarse con cualquier as disponible, sin importar el palo ni el color."`,
			"classic", baseDeal, "", "7.4+7.5", nil},
		{"pair order does not matter", `000: "Selecciona una carta y después otra disponible que complete una suma de 13."`,
			"classic", baseDeal, "", "7.5+7.4", nil},
		{"not thirteen", `000: "Selecciona una carta y después otra disponible que complete una suma de 13."`,
			"classic", baseDeal, "", "7.2+7.4", ErrNotThirteen},
		{"only a king goes alone", `001: "El rey vale 13 por sí solo y se retira solo."`,
			"classic", baseDeal, "", "7.2", ErrNotKing},
		{"pair with a covered card", `000: "Ambas cartas deben estar disponibles antes de retirarlas."`,
			"classic", baseDeal, "", "6.6+7.7", ErrCovered},
		{"covered by one card, strict", `001: "kawu usa la regla más estricta y más habitual."`,
			"classic", baseDeal, "d 7.6+w", "6.6+7.7", ErrCovered},
		{"covered by one card, overlap", `001: "Algunas versiones permiten emparejar una carta con la única carta que todavía la cubre"`,
			"classic,cover=overlap", baseDeal, "d 7.6+w", "6.6+7.7", nil},
		{"overlap needs the single coverer", `001: "emparejar una carta con la única carta que todavía la cubre"`,
			"classic,cover=overlap", baseDeal, "d 7.6+w d", "6.6+w", ErrCovered},
		{"overlap needs one coverer gone", `000: "No puedes combinar una carta libre con otra que siga cubierta por ella al iniciar la jugada."`,
			"classic,cover=overlap", baseDeal, "", "6.6+7.7", ErrCovered},
		{"stock top closed", `000: "No puedes seleccionar cartas boca abajo del mazo"`,
			"classic", baseDeal, "", "7.6+s", ErrNotAvailable},
		{"stock top open", `001: "Su carta superior está boca arriba y se puede jugar."`,
			"open-stock", baseDeal, "", "7.6+s", nil},
		{"stock king open", `001: "El rey vale 13 por sí solo y se retira solo." (the stock top is available)`,
			"open-stock", baseDeal, "d", "s", nil},
		{"waste top pairs pyramid", `000: "Solo la carta superior del descarte puede combinarse con una carta libre de la pirámide."`,
			"classic", baseDeal, "d", "7.6+w", nil},
		{"only the waste top", `000: "No puedes seleccionar … cartas tapadas del descarte"`,
			"classic", baseDeal, "d d", "7.6+w", ErrNotThirteen},
		{"waste king alone", `000: "Un rey libre de cualquiera de esas zonas se retira solo."`,
			"classic", baseDeal, "d d", "w", nil},
		{"card below the waste top returns", `000: "Al retirarla, queda disponible la carta situada justo debajo."`,
			"classic", baseDeal, "d d w", "7.6+w", nil},
		{"empty waste", `000: "El descarte comienza vacío."`,
			"classic", baseDeal, "", "7.6+w", ErrEmpty},
		{"stock and waste pair", `001: "o la carta superior del mazo con la del descarte"`,
			"open-stock", baseDeal, "d d d", "w+s", nil},
		{"two waste cards never pair, closed stock", `000: "No puedes seleccionar … dos cartas del descarte a la vez."`,
			"classic", baseDeal, "d d d", "w+s", ErrNotAvailable},
		{"pile pair needs a pyramid card", `003: "Fra loro, due carte degli scarti non si combinano."`,
			"open-stock,pairs=pyramid", baseDeal, "d d d", "w+s", ErrNeedsPyramid},
		{"pyramid pairs still pair the pyramid", `003: "In ogni coppia almeno una carta viene dalla piramide."`,
			"open-stock,pairs=pyramid", baseDeal, "", "7.6+s", nil},
		{"pyramid pairs let a waste king go", `003: "Funziona anche per un re fermo in cima agli scarti."`,
			"classic,pairs=pyramid", baseDeal, "d d", "w", nil},
		{"three piles: each top available", `002: "le tre nuove carte vengono distribuite su queste tre pile"`,
			"draw-three", baseDeal, "d", "w2", nil},
		{"three piles: pile one pairs", `002: "Il primo set di tre è posto sul tavolo per iniziare tre pile distinte."`,
			"draw-three", baseDeal, "d", "7.6+w1", nil},
		{"three piles: pile three pairs with pile one", `002: "L'ordine in cui le carte sono posizionate sulle pile dovrebbe rimanere costante"`,
			"draw-three", baseDeal, "d d", "w1+w3", ErrNotThirteen},
		{"three piles: no plain w", `002: "Draw Pile Option"`,
			"draw-three", baseDeal, "d", "w", ErrNoSuchPlace},
		{"three piles: emptied pile", `002: "Draw Pile Option"`,
			"draw-three", baseDeal, "d w2", "w2", ErrEmpty},
		{"three piles: second deal lands on the piles", `002: "Quando vengono effettuati i progetti futuri, le tre nuove carte vengono distribuite su queste tre pile."`,
			"draw-three", baseDeal, "d d", "7.5+w1", ErrNotThirteen},
		{"three piles: card below returns", `002: "Può essere usato più avanti nel gioco, ma solo se viene scoperto"`,
			"draw-three", baseDeal, "d d 7.4+w1", "7.6+w1", nil},
		{"single pile: w1 means w", `docs/rules.md: "w the waste top (w1–w3 with three waste piles)"`,
			"classic", baseDeal, "d", "7.6+w1", nil},
		{"no row 8 in a single pyramid", `RULES.md: "The pyramid has n rows (7 single, 9 double)"`,
			"classic", baseDeal, "", "8.1", ErrNoSuchPlace},
		{"draw with stock", `000: "Selecciona el mazo boca abajo para pasar una carta a la pila de descarte."`,
			"classic", baseDeal, "", "d", nil},
		{"redeal before the stock is empty", `000: "Al reutilizarlo, el descarte restante vuelve al mazo sin barajarse."`,
			"classic", baseDeal, "d", "r", ErrStockNotEmpty},
		{"removed card", `000: "Las cartas permanecen en su posición original hasta que se retiran."`,
			"classic", baseDeal, "7.1", "7.1", ErrEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newTestGame(t, tt.spec, tt.deal, tt.setup)
			m, err := ParseMove(tt.move)
			if err != nil {
				t.Fatalf("ParseMove(%q): %v", tt.move, err)
			}
			err = g.Apply(m)
			if tt.want == nil && err != nil {
				t.Fatalf("%s after %q under %s: got %v, want legal\n(seed %s)\n%s", tt.move, tt.setup, tt.spec, err, tt.seed, g)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("%s after %q under %s: got %v, want %v\n(seed %s)\n%s", tt.move, tt.setup, tt.spec, err, tt.want, tt.seed, g)
			}
			// Apply and Legal must agree.
			if tt.want == nil {
				_ = g.Undo()
			}
			legal := slices.Contains(g.Legal(), g.canonicalMove(m))
			if legal != (tt.want == nil) {
				t.Fatalf("Legal() contains %s: %v, want %v; legal: %v", tt.move, legal, tt.want == nil, g.Legal())
			}
		})
	}
}

// TestPasses checks pass limits, redeals and the pass counter.
func TestPasses(t *testing.T) {
	tests := []struct {
		name, seed, spec string
		redeals          int   // redeals that must succeed after drawing all
		want             error // for the redeal after those
	}{
		{"one pass", `004: "en esta versión solo se pasa 1 vez"`, "one-pass", 0, ErrNoRedeal},
		{"easy: two passes", `004: "El Solitario pirámide fácil permite pasar la baraja 2 veces"`, "easy", 1, ErrNoRedeal},
		{"classic: three passes", `000: "El modo Clásico permite tres pasadas por el mazo en total: la primera y dos reutilizaciones."`, "classic", 2, ErrNoRedeal},
		{"double: two redeals", `003: "Lo puoi fare due volte, quindi in tutto le vedi passare tre volte."`, "double", 2, ErrNoRedeal},
		{"relaxed: unlimited", `000: "El modo Relajado permite pasadas ilimitadas."`, "relaxed", 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := MustRules(tt.spec)
			g, err := NewNumbered(r, 7)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i <= tt.redeals; i++ {
				if g.Pass() != i+1 {
					t.Fatalf("pass: got %d, want %d", g.Pass(), i+1)
				}
				drawAll(t, g)
				if err := g.Apply(DrawMove); !errors.Is(err, ErrStockEmpty) {
					t.Fatalf("draw on an empty stock: got %v, want %v", err, ErrStockEmpty)
				}
				if i < tt.redeals {
					if err := g.Apply(RedealMove); err != nil {
						t.Fatalf("redeal %d (%s): %v", i+1, tt.seed, err)
					}
					if got, want := g.StockCount(), r.StockSize(); got != want {
						t.Fatalf("stock after redeal: got %d cards, want %d", got, want)
					}
				}
			}
			err = g.Apply(RedealMove)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("last redeal: got %v, want %v (%s)", err, tt.want, tt.seed)
			}
		})
	}
}

// TestRedealOrder checks that a redeal keeps the order and drops removed
// cards, with many, one and no cards left.
func TestRedealOrder(t *testing.T) {
	// 000: "Reutilizar el mazo no cambia su orden: recorrerlo otra vez sin
	// retirar cartas no crea un orden nuevo."
	t.Run("many cards, same order", func(t *testing.T) {
		g := newTestGame(t, "classic", baseDeal, "d d w") // removes KC from the waste
		var first []Card
		for g.StockCount() > 0 {
			_ = g.Apply(DrawMove)
			c, _ := g.WasteTop(0)
			first = append(first, c)
		}
		if err := g.Apply(RedealMove); err != nil {
			t.Fatal(err)
		}
		var second []Card
		for g.StockCount() > 0 {
			_ = g.Apply(DrawMove)
			c, _ := g.WasteTop(0)
			second = append(second, c)
		}
		want := append([]Card{MustCard("8S")}, first...)
		if !slices.Equal(second, want) {
			t.Fatalf("second pass: got %v, want %v", second, want)
		}
	})
	// 003: "Le carte tornano nell'ordine esatto in cui le hai già viste,
	// tolte quelle finite in coppia."
	t.Run("one card left", func(t *testing.T) {
		setup := strings.Repeat("d w+s ", 11) + "d 7.1+s"
		g := newTestGame(t, "open-stock", pairedStockDeal, setup)
		if g.StockCount() != 0 || g.WasteCount(0) != 1 {
			t.Fatalf("before redeal: stock %d waste %d, want 0 and 1\n%s", g.StockCount(), g.WasteCount(0), g)
		}
		if err := g.Apply(RedealMove); err != nil {
			t.Fatal(err)
		}
		if top, ok := g.StockTop(); !ok || top != MustCard("6H") || g.StockCount() != 1 || g.Pass() != 2 {
			t.Fatalf("after redeal: stock top %v (%v), %d cards, pass %d; want 6H, 1 card, pass 2", top, ok, g.StockCount(), g.Pass())
		}
	})
	// RULES.md: "Lost: no pair or King can be removed, nothing can be
	// drawn and no redeal is left." Turning over an empty waste is no move.
	t.Run("no cards left", func(t *testing.T) {
		setup := strings.Repeat("d w+s ", 12)
		g := newTestGame(t, "open-stock", pairedStockDeal, setup)
		if err := g.Apply(RedealMove); !errors.Is(err, ErrWasteEmpty) {
			t.Fatalf("redeal with no cards: got %v, want %v", err, ErrWasteEmpty)
		}
		for _, m := range g.Legal() {
			if m.Kind == Draw || m.Kind == Redeal {
				t.Fatalf("Legal() offers %s with stock and waste empty", m)
			}
		}
	})
}

// TestLastCardOfLastPass: drawing the last card of the last pass does not
// end the game while a legal move remains.
func TestLastCardOfLastPass(t *testing.T) {
	// 000: "Robar la última carta de la tercera pasada no termina la partida
	// mientras todavía quede una jugada válida."
	g := newTestGame(t, "one-pass", baseDeal, "")
	drawAll(t, g)
	if got := g.Status(); got != Playing {
		t.Fatalf("after the last card with moves left: got %s, want playing; legal %v", got, g.Legal())
	}
	// 004: "hasta que no se pueden enviar más cartas al mazo de destino ni
	// la baraja permite enviar más cartas al mazo de descarte, en cuyo caso
	// la partida se ha perdido."
	b := newTestGame(t, "one-pass", blockedDeal, "")
	if got := b.Status(); got != Playing {
		t.Fatalf("blocked deal before drawing: got %s, want playing", got)
	}
	drawAll(t, b)
	if got := b.Status(); got != Lost || len(b.Legal()) != 0 {
		t.Fatalf("blocked deal after the last card: got %s with %v, want lost with no move", got, b.Legal())
	}
	// 001: "Aun así puedes deshacer y probar otro camino."
	if err := b.Undo(); err != nil || b.Status() != Playing {
		t.Fatalf("undo after losing: err %v, status %s; want playing", err, b.Status())
	}
}

// TestNeverStuckBeforeLastPass: with passes left there is always a draw or
// a redeal, and with unlimited passes a deal where no card can ever be
// removed is lost at once.
func TestNeverStuckBeforeLastPass(t *testing.T) {
	// 003: "Prima del terzo passaggio non puoi restare bloccato."
	g := newTestGame(t, "classic", blockedDeal, "")
	for pass := 1; pass < 3; pass++ {
		drawAll(t, g)
		if g.Status() != Playing || !slices.Contains(g.Legal(), RedealMove) {
			t.Fatalf("pass %d: status %s, legal %v; want playing with a redeal", pass, g.Status(), g.Legal())
		}
		_ = g.Apply(RedealMove)
	}
	drawAll(t, g)
	if g.Status() != Lost {
		t.Fatalf("end of pass 3: got %s, want lost", g.Status())
	}
	// 000: "Las pasadas ilimitadas no garantizan que todas las partidas
	// tengan solución." A relaxed game that can only cycle is lost.
	r := newTestGame(t, "relaxed", blockedDeal, "")
	if r.Status() != Lost {
		t.Fatalf("relaxed blocked deal: got %s, want lost", r.Status())
	}
	if r := newTestGame(t, "relaxed", baseDeal, ""); r.Status() != Playing {
		t.Fatalf("relaxed base deal: got %s, want playing", r.Status())
	}
}

// TestGoal checks the two goals: clearing the pyramid or every card.
func TestGoal(t *testing.T) {
	// 001: "Ganas cuando has retirado las 28 cartas de la pirámide. Las
	// cartas que queden en el mazo o en el descarte no importan."
	for _, tt := range []struct {
		spec string
		want Status
	}{{"classic", Won}, {"classic,goal=all", Playing}, {"double", Won}, {"double,goal=all", Playing}} {
		g, _ := NewNumbered(MustRules(tt.spec), 1)
		for s := range g.nPyr { // white box: clear the pyramid
			g.removed.add(s)
		}
		if got := g.Status(); got != tt.want {
			t.Errorf("%s with the pyramid cleared: got %s, want %s", tt.spec, got, tt.want)
		}
		if tt.want == Won {
			if err := g.Apply(DrawMove); !errors.Is(err, ErrGameOver) {
				t.Errorf("%s: move after winning: got %v, want %v", tt.spec, err, ErrGameOver)
			}
			continue
		}
		for s := g.nPyr; s < g.nAll; s++ {
			g.removed.add(s)
		}
		if got := g.Status(); got != Won {
			t.Errorf("%s with every card removed: got %s, want won", tt.spec, got)
		}
	}
}

// TestDoublePyramid checks the double deal's shape and rules.
func TestDoublePyramid(t *testing.T) {
	// 003: "Piramide: 45 carte a triangolo su nove file" and "Mazzo di
	// scorta: le 59 carte che avanzano"
	g, err := NewNumbered(MustRules("double"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if g.Rows() != 9 || len(g.Deal().Pyramid()) != 45 || g.StockCount() != 59 {
		t.Fatalf("double: %d rows, %d pyramid, %d stock; want 9, 45, 59", g.Rows(), len(g.Deal().Pyramid()), g.StockCount())
	}
	// 003: "Le nove della fila più bassa non ne hanno nessuna addosso e sono
	// giocabili fin dalla distribuzione."
	for c := 1; c <= 9; c++ {
		if !g.Available(Slot(9, c)) {
			t.Errorf("9.%d not available at the start", c)
		}
		if !slices.Equal(g.Coverers(Slot(8, min(c, 8))), []Place{Slot(9, min(c, 8)), Slot(9, min(c, 8)+1)}) {
			t.Errorf("coverers of 8.%d: got %v", min(c, 8), g.Coverers(Slot(8, min(c, 8))))
		}
	}
	for c := 1; c <= 8; c++ {
		if g.Available(Slot(8, c)) {
			t.Errorf("8.%d available at the start", c)
		}
	}
	// 003: "Il re se ne va senza compagna … Funziona anche per un re fermo in
	// cima agli scarti." Draw until a King tops the waste and remove it.
	for g.StockCount() > 0 {
		_ = g.Apply(DrawMove)
		if c, _ := g.WasteTop(0); c.Rank() == 13 {
			if err := g.ApplyNotation("w"); err != nil {
				t.Fatalf("waste King: %v", err)
			}
			return
		}
	}
	t.Fatal("no King in the stock of double deal 3")
}

// MustCard parses a card known to be valid.
func MustCard(s string) Card {
	c, err := ParseCard(s)
	if err != nil {
		panic(err)
	}
	return c
}

func TestParseRules(t *testing.T) {
	tests := []struct {
		spec    string
		wantID  string
		wantErr string // a part of the error; empty: no error
	}{
		{"classic", "classic", ""},
		{"Classic", "classic", ""},
		{"relaxed", "relaxed", ""},
		{"open-stock", "open-stock", ""},
		{"one-pass", "one-pass", ""},
		{"easy", "easy", ""},
		{"draw-three", "draw-three", ""},
		{"double", "double", ""},
		{"daily", "daily", ""},
		{"classic,passes=unlimited", "relaxed", ""},
		{"classic,passes=1", "one-pass", ""},
		{"classic, passes = 2", "easy", ""},
		{"classic,cover=overlap,passes=2", "decks=1,passes=2,stock=closed,pairs=any,cover=overlap,draw=1,goal=pyramid", ""},
		{"passes=1,stock=open,goal=all", "decks=1,passes=1,stock=open,pairs=any,cover=strict,draw=1,goal=all", ""},
		{"double,decks=1", "decks=1,passes=3,stock=closed,pairs=pyramid,cover=strict,draw=1,goal=pyramid", ""},
		{"daily,cover=overlap", "daily,decks=1,passes=3,stock=closed,pairs=any,cover=overlap,draw=1,goal=pyramid", ""},
		{"classic,draw=3,passes=1", "draw-three", ""},
		{"klondike", "", `unknown rule set "klondike": want one of classic, relaxed`},
		{"classic,passes=4", "", `bad value "4" for passes: want one of 1, 2, 3, unlimited`},
		{"classic,colour=red", "", `unknown knob "colour": want one of decks, passes, stock, pairs, cover, draw, goal`},
		{"classic,relaxed", "", `"relaxed" is not a knob=value pair`},
		{"classic,draw=2", "", `bad value "2" for draw: want one of 1, 3`},
		{"classic,passes=2,passes=3", "", `passes is given twice (passes=2 and passes=3)`},
		{"classic,passes=2,passes=2", "", `passes is given twice`},
		{"", "", `unknown rule set ""`},
		{strings.Repeat("x", 300), "", "at most 256"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			r, err := ParseRules(tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseRules(%q): got error %v, want one containing %q", tt.spec, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseRules(%q): %v", tt.spec, err)
			}
			if got := r.ID(); got != tt.wantID {
				t.Fatalf("ID: got %q, want %q", got, tt.wantID)
			}
			back, err := ParseRules(r.ID())
			if err != nil || back != r {
				t.Fatalf("ID %q parses back to %+v (%v), want %+v", r.ID(), back, err, r)
			}
		})
	}
}

// TestPresets pins the eight named rule sets to RULES.md's table.
func TestPresets(t *testing.T) {
	want := map[string]Rules{
		"classic":    {Decks: 1, Passes: 3, Draw: 1},
		"relaxed":    {Decks: 1, Passes: 0, Draw: 1},
		"open-stock": {Decks: 1, Passes: 3, StockOpen: true, Draw: 1},
		"one-pass":   {Decks: 1, Passes: 1, Draw: 1},
		"easy":       {Decks: 1, Passes: 2, Draw: 1},
		"draw-three": {Decks: 1, Passes: 1, Draw: 3},
		"double":     {Decks: 2, Passes: 3, PyramidPairs: true, Draw: 1},
		"daily":      {Decks: 1, Passes: 3, Draw: 1, Daily: true},
	}
	names := PresetNames()
	if len(names) != len(want) {
		t.Fatalf("got %d presets, want %d", len(names), len(want))
	}
	for _, n := range names {
		r, ok := Preset(n)
		if !ok || r != want[n] {
			t.Errorf("preset %s: got %+v, want %+v", n, r, want[n])
		}
		if err := r.Validate(); err != nil {
			t.Errorf("preset %s: %v", n, err)
		}
	}
}

// TestRulesNames: a rule set has one name for players (Title) and one
// short spec (Spec) that plays it; a custom set is named by its nearest
// preset and the knobs apart from it, and its spec parses back to it.
func TestRulesNames(t *testing.T) {
	for _, tc := range []struct{ spec, title, short string }{
		{"classic", "Classic", "classic"},
		{"double", "Double", "double"},
		{"daily", "Daily", "daily"},
		{"classic,cover=overlap", "Classic, cover=overlap", "classic,cover=overlap"},
		{"one-pass,draw=3,goal=all", "Draw three, goal=all", "draw-three,goal=all"},
		{"relaxed,passes=3", "Classic", "classic"},
		{"daily,passes=1", "Daily: One pass", "daily,passes=1"},
		{"daily,decks=2,pairs=pyramid", "Daily: Double", "daily,decks=2,pairs=pyramid"},
	} {
		r := MustRules(tc.spec)
		if got := r.Title(); got != tc.title {
			t.Errorf("%s: Title() = %q, want %q", tc.spec, got, tc.title)
		}
		if got := r.Spec(); got != tc.short {
			t.Errorf("%s: Spec() = %q, want %q", tc.spec, got, tc.short)
		}
	}
	// Every combination of knobs, daily or not: the spec plays the same
	// rules, and is never longer than the canonical ID.
	var walk func(i int, r Rules)
	walk = func(i int, r Rules) {
		if i == len(knobs) {
			for _, daily := range []bool{false, true} {
				r.Daily = daily
				back, err := ParseRules(r.Spec())
				if err != nil || back != r {
					t.Errorf("ParseRules(%q) = %+v, %v; want %+v", r.Spec(), back, err, r)
				}
				if len(r.Spec()) > len(r.ID()) {
					t.Errorf("Spec %q longer than ID %q", r.Spec(), r.ID())
				}
			}
			return
		}
		for _, v := range knobs[i].values {
			knobs[i].set(&r, v)
			walk(i+1, r)
		}
	}
	walk(0, Classic())
}
