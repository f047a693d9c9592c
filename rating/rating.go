// Package rating rates players from the placings of multiplayer races with
// the Weng–Lin Bayesian approximation (Weng and Lin, "A Bayesian
// Approximation Method for Online Ranking", JMLR 12, 2011) under the
// Plackett–Luce model, as OpenSkill does. It handles any number of entrants
// from two up (races have 2–8), teams of one or more, and ties.
//
// A rating is a belief about a player's skill: a mean μ and an uncertainty
// σ. New players start at μ 25, σ 25/3; every race moves μ towards what
// the placings say and shrinks σ. The value to show and rank by is the
// ordinal μ − 3σ, which a player's true skill exceeds with about 99.7%
// likelihood, so a newcomer starts at 0 and climbs as the system grows sure.
//
// The package is pure arithmetic: no state, no time, no randomness.
package rating

import (
	"errors"
	"fmt"
	"math"
)

// Defaults of the model, those of OpenSkill.
const (
	DefaultMu    = 25.0
	DefaultSigma = DefaultMu / 3
	DefaultBeta  = DefaultSigma / 2
	DefaultKappa = 0.0001
	// SuggestedTau is the customary additive dynamics factor (σ0/100): with
	// it, σ never collapses, so a long-settled rating can still move.
	SuggestedTau = DefaultSigma / 100
)

// Rating is one player's skill estimate.
type Rating struct {
	Mu    float64 // mean skill
	Sigma float64 // uncertainty (standard deviation) of Mu
}

// Ordinal is the conservative value to display and rank by: μ − 3σ.
func (r Rating) Ordinal() float64 { return r.Mu - 3*r.Sigma }

// String formats the rating as "μ±σ" with two decimals.
func (r Rating) String() string { return fmt.Sprintf("%.2f±%.2f", r.Mu, r.Sigma) }

// Model holds the parameters of the Plackett–Luce update. The zero Model is
// not usable; start from Default.
type Model struct {
	// Mu and Sigma are a new player's rating.
	Mu, Sigma float64
	// Beta is the spread of one performance around the player's skill:
	// how much luck there is in one race.
	Beta float64
	// Kappa is the floor of the factor σ is multiplied by in one update,
	// so σ stays positive.
	Kappa float64
	// Tau, when positive, is added in quadrature to every σ before a
	// race (σ² + τ²), so that skill may drift and σ never collapses.
	Tau float64
}

// Default returns the model with OpenSkill's defaults and no τ.
func Default() Model {
	return Model{Mu: DefaultMu, Sigma: DefaultSigma, Beta: DefaultBeta, Kappa: DefaultKappa}
}

// Races returns the model that rates the arcade's races: OpenSkill's
// defaults with the customary τ (SuggestedTau), so that a settled rating
// can still move. The store applies it in the transaction that records a
// race; the policy is here, not in the SQL.
func Races() Model {
	m := Default()
	m.Tau = SuggestedTau
	return m
}

// New returns a new player's rating.
func (m Model) New() Rating { return Rating{Mu: m.Mu, Sigma: m.Sigma} }

// Errors of Rate and RateTeams, wrapped with the details.
var (
	// ErrTooFew: fewer than two entrants, or an empty team.
	ErrTooFew = errors.New("rating: a race needs at least two entrants, each of one player or more")
	// ErrMismatch: not one rank per entrant.
	ErrMismatch = errors.New("rating: one rank per entrant is needed")
	// ErrBadRating: a μ that is not finite or a σ that is not positive
	// and finite.
	ErrBadRating = errors.New("rating: not a valid rating")
	// ErrBadModel: a model parameter that is not positive (τ may be zero).
	ErrBadModel = errors.New("rating: not a valid model")
)

func (m Model) check() error {
	ok := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	if !ok(m.Sigma) || !ok(m.Beta) || !ok(m.Kappa) || m.Tau < 0 || math.IsInf(m.Tau, 0) ||
		math.IsNaN(m.Mu) || math.IsInf(m.Mu, 0) {
		return fmt.Errorf("%w: %+v", ErrBadModel, m)
	}
	return nil
}

func checkRating(r Rating) error {
	if math.IsNaN(r.Mu) || math.IsInf(r.Mu, 0) || !(r.Sigma > 0) || math.IsInf(r.Sigma, 0) {
		return fmt.Errorf("%w: %v", ErrBadRating, r)
	}
	return nil
}

// Rate rates one race of individual players. ranks[i] is the place of
// ratings[i]: lower is better, equal ranks are a tie, and only the order
// matters (1, 2, 2, 4 and 0, 5, 5, 9 are the same result). It returns the
// new ratings in the same order and leaves its arguments alone.
func (m Model) Rate(ratings []Rating, ranks []int) ([]Rating, error) {
	teams := make([][]Rating, len(ratings))
	for i := range ratings {
		teams[i] = ratings[i : i+1]
	}
	out, err := m.RateTeams(teams, ranks)
	if err != nil {
		return nil, err
	}
	flat := make([]Rating, len(out))
	for i, t := range out {
		flat[i] = t[0]
	}
	return flat, nil
}

// RateTeams rates one race of teams: a team's skill is the sum of its
// players' (μ adds up, and so does σ²), and each player's share of the
// update is in proportion to their σ². ranks is as for Rate.
func (m Model) RateTeams(teams [][]Rating, ranks []int) ([][]Rating, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	if len(teams) < 2 {
		return nil, fmt.Errorf("%w: got %d", ErrTooFew, len(teams))
	}
	if len(ranks) != len(teams) {
		return nil, fmt.Errorf("%w: %d entrants, %d ranks", ErrMismatch, len(teams), len(ranks))
	}
	n := len(teams)
	// Each team's combined μ and σ², after the optional τ.
	tau2 := m.Tau * m.Tau
	mu := make([]float64, n)
	s2 := make([]float64, n)
	for i, t := range teams {
		if len(t) == 0 {
			return nil, fmt.Errorf("%w: entrant %d has no player", ErrTooFew, i+1)
		}
		for _, r := range t {
			if err := checkRating(r); err != nil {
				return nil, fmt.Errorf("entrant %d: %w", i+1, err)
			}
			mu[i] += r.Mu
			s2[i] += r.Sigma*r.Sigma + tau2
		}
	}
	// c is the collective spread of all performances.
	beta2 := m.Beta * m.Beta
	var c2 float64
	for i := range teams {
		c2 += s2[i] + beta2
	}
	c := math.Sqrt(c2)
	// e[i] = exp(μ_i/c), shifted by the largest μ so that the exponentials
	// cannot overflow (every ratio below is unchanged by the shift).
	maxMu := mu[0]
	for _, v := range mu {
		maxMu = max(maxMu, v)
	}
	e := make([]float64, n)
	for i := range mu {
		e[i] = math.Exp((mu[i] - maxMu) / c)
	}
	// sumQ[q] sums e over the entrants placed at q or below; a[q] counts
	// the entrants tied with q (q included).
	sumQ := make([]float64, n)
	a := make([]float64, n)
	for q := range teams {
		for i := range teams {
			if ranks[i] >= ranks[q] {
				sumQ[q] += e[i]
			}
			if ranks[i] == ranks[q] {
				a[q]++
			}
		}
	}
	out := make([][]Rating, n)
	for i, t := range teams {
		var omega, delta float64
		for q := range teams {
			if ranks[q] > ranks[i] {
				continue
			}
			p := e[i] / sumQ[q]
			if q == i {
				omega += (1 - p) / a[q]
			} else {
				omega -= p / a[q]
			}
			delta += p * (1 - p) / a[q]
		}
		gamma := math.Sqrt(s2[i]) / c
		out[i] = make([]Rating, len(t))
		for j, r := range t {
			ps2 := r.Sigma*r.Sigma + tau2
			out[i][j] = Rating{
				Mu:    r.Mu + ps2/c*omega,
				Sigma: math.Sqrt(ps2) * math.Sqrt(math.Max(1-gamma*ps2/c2*delta, m.Kappa)),
			}
		}
	}
	return out, nil
}
