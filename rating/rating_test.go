package rating

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// near reports whether got is within 1e-9 of want.
func near(got, want float64) bool { return math.Abs(got-want) <= 1e-9 }

// TestReferenceVectors checks the update against the values OpenSkill
// publishes (multiplayer.md §3.1).
func TestReferenceVectors(t *testing.T) {
	d := Default().New()
	tau := Default()
	tau.Tau = SuggestedTau
	tests := []struct {
		name  string
		model Model
		teams [][]Rating
		ranks []int
		want  [][]Rating
	}{
		{
			// openskill 3.1.0 README: rate([[a1, a2], [b1, b2]]) with a1
			// the default rating.
			name:  "openskill 3.1 2v2",
			model: Default(),
			teams: [][]Rating{{d, {32.444, 5.123}}, {{43.381, 2.421}, {25.188, 6.211}}},
			ranks: []int{1, 2},
			want: [][]Rating{
				{{28.669648436582808, 8.071520788025197}, {33.83086971107981, 5.062772998705765}},
				{{43.071274808241974, 2.4166900452721256}, {23.149503312339064, 6.1378606973362135}},
			},
		},
		{
			// openskill 5.x: default 2v2, whose τ is 25/300.
			name:  "openskill 5 default 2v2 winners",
			model: tau,
			teams: [][]Rating{{d, d}, {d, d}},
			ranks: []int{1, 2},
			want:  [][]Rating{{{26.964294621803063, 8.177962604389991}, {26.964294621803063, 8.177962604389991}}, nil},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.model.RateTeams(tt.teams, tt.ranks)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				for j, w := range tt.want[i] {
					if g := got[i][j]; !near(g.Mu, w.Mu) || !near(g.Sigma, w.Sigma) {
						t.Errorf("team %d player %d: got %.15f±%.15f, want %.15f±%.15f", i, j, g.Mu, g.Sigma, w.Mu, w.Sigma)
					}
				}
			}
		})
	}
}

func equals(n int) []Rating {
	rs := make([]Rating, n)
	for i := range rs {
		rs[i] = Default().New()
	}
	return rs
}

func TestProperties(t *testing.T) {
	for _, model := range []Model{Default(), {Mu: 25, Sigma: 25.0 / 3, Beta: 25.0 / 6, Kappa: 0.0001, Tau: SuggestedTau}} {
		for n := 2; n <= 8; n++ {
			t.Run(fmt.Sprintf("tau %.3f n %d", model.Tau, n), func(t *testing.T) {
				ranks := make([]int, n)
				for i := range ranks {
					ranks[i] = i + 1
				}
				got, err := model.Rate(equals(n), ranks)
				if err != nil {
					t.Fatal(err)
				}
				if got[0].Mu <= DefaultMu {
					t.Errorf("winner's μ %v did not rise", got[0].Mu)
				}
				if got[n-1].Mu >= DefaultMu {
					t.Errorf("last's μ %v did not fall", got[n-1].Mu)
				}
				for i := 1; i < n; i++ {
					if got[i].Mu >= got[i-1].Mu {
						t.Errorf("place %d's μ %v not below place %d's %v", i+1, got[i].Mu, i, got[i-1].Mu)
					}
				}
				var sum float64
				for i, r := range got {
					sum += r.Mu
					if r.Sigma >= DefaultSigma+model.Tau {
						t.Errorf("place %d: σ %v did not shrink", i+1, r.Sigma)
					}
				}
				if n == 2 && !near(sum, 2*DefaultMu) {
					t.Errorf("two equal players: μ sum %v, want %v", sum, 2*DefaultMu)
				}

				// A tie of equals changes nobody's μ.
				tied, err := model.Rate(equals(n), make([]int, n))
				if err != nil {
					t.Fatal(err)
				}
				for i, r := range tied {
					if !near(r.Mu, DefaultMu) {
						t.Errorf("all tied: player %d μ %v, want %v", i+1, r.Mu, DefaultMu)
					}
				}
			})
		}
	}
}

func TestTiesAndRankValues(t *testing.T) {
	m := Default()
	rs := []Rating{{30, 5}, {25, 8}, {20, 3}, {27, 6}}
	a, err := m.Rate(rs, []int{1, 2, 2, 4})
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Rate(rs, []int{0, 5, 5, 9})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("player %d: ranks 1,2,2,4 give %v, 0,5,5,9 give %v", i+1, a[i], b[i])
		}
	}
	if rs[0] != (Rating{30, 5}) {
		t.Errorf("Rate changed its argument: %v", rs[0])
	}
	// Tied players of equal rating get equal updates.
	eq := []Rating{{25, 8}, {25, 8}, {25, 8}}
	c, err := m.Rate(eq, []int{1, 1, 3})
	if err != nil {
		t.Fatal(err)
	}
	if c[0] != c[1] || c[0].Mu <= 25 || c[2].Mu >= 25 {
		t.Errorf("1,1,3 among equals: %v", c)
	}
}

func TestErrors(t *testing.T) {
	d := Default().New()
	tests := []struct {
		name  string
		model Model
		teams [][]Rating
		ranks []int
		want  error
	}{
		{"one entrant", Default(), [][]Rating{{d}}, []int{1}, ErrTooFew},
		{"empty team", Default(), [][]Rating{{d}, {}}, []int{1, 2}, ErrTooFew},
		{"ranks short", Default(), [][]Rating{{d}, {d}}, []int{1}, ErrMismatch},
		{"zero sigma", Default(), [][]Rating{{d}, {{25, 0}}}, []int{1, 2}, ErrBadRating},
		{"NaN mu", Default(), [][]Rating{{d}, {{math.NaN(), 1}}}, []int{1, 2}, ErrBadRating},
		{"zero model", Model{}, [][]Rating{{d}, {d}}, []int{1, 2}, ErrBadModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.model.RateTeams(tt.teams, tt.ranks); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestExtremeRatingsStayFinite(t *testing.T) {
	got, err := Default().Rate([]Rating{{5000, 1}, {-5000, 1}, {0, 100}}, []int{3, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range got {
		if math.IsNaN(r.Mu) || math.IsInf(r.Mu, 0) || !(r.Sigma > 0) {
			t.Errorf("player %d: %v", i+1, r)
		}
	}
}

func TestOrdinal(t *testing.T) {
	if got := Default().New().Ordinal(); !near(got, 0) {
		t.Errorf("new player's ordinal %v, want 0", got)
	}
}

func ExampleModel_Rate() {
	m := Default()
	alice, bob, carol := m.New(), m.New(), m.New()
	// Alice won, Bob and Carol tied for second.
	rs, _ := m.Rate([]Rating{alice, bob, carol}, []int{1, 2, 2})
	for _, r := range rs {
		fmt.Printf("%v ordinal %.2f\n", r, r.Ordinal())
	}
	// Output:
	// 27.87±8.20 ordinal 3.25
	// 23.57±8.06 ordinal -0.61
	// 23.57±8.06 ordinal -0.61
}
