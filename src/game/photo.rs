//! Figures from a photo: the detector's figures are bound to a game's
//! figures, and their positions and facings replace the ones typed into the
//! scenario.
//!
//! # Conventions
//! - Positions are base centres in table inches (table frame of
//!   `TABLE_KIT.md`); facings degrees counter-clockwise from +x.
//! - A figure is compatible with a detection when the base kind matches
//!   (round foot, rectangular mounted) and, where the rule set paints
//!   experience on the base edge, the edge colour matches.
//! - The binding is the most likely assignment under a two-part motion
//!   model, as a cost in nats ([`move_cost`]): most figures have not moved
//!   since the scenario's positions (a detection within a fraction of an
//!   inch, Gaussian), the others moved anywhere up to
//!   [`BindParams::max_move_in`]. So one figure that moved far is preferred
//!   to a chain of neighbours that each moved a little. A figure left
//!   unbound costs more than any move.
//! - Look-alike figures (same base and edge) that moved together cannot be
//!   told apart from one photo: when another assignment is nearly as likely
//!   ([`BindParams::ambiguity_margin_nats`]) the player is asked to say
//!   which is which.

use nalgebra::Point2;
use pathfinding::prelude::{Matrix, kuhn_munkres_min};
use serde::Serialize;

use super::state::{Figure, FigureId, GameState};
use crate::geometry::BaseShape;
use crate::vision::{BaseKind, Detection, EdgeColour};

/// Default for [`BindParams::max_move_in`]: the most any figure moves in a
/// turn (a galloping mount, 12 in).
pub const MAX_MOVE_IN: f64 = 12.0;
/// Default for [`BindParams::ambiguity_margin_nats`]: another binding at
/// least 1/20 as likely as the best one (ln 20 nats) makes it a guess.
pub const AMBIGUITY_MARGIN_NATS: f64 = 3.0;
/// Default for [`BindParams::still_sigma_in`]: how far a figure that was
/// not moved is found from its recorded position (detection and typing
/// error, a nudge), 1 sigma, inches.
pub const STILL_SIGMA_IN: f64 = 0.1;
/// Default for [`BindParams::moved_nats`]: the cost of a figure having
/// moved at all (about e^-4: one figure in fifty-odd moved between the
/// record and the photo, per unit of the moved distance's spread).
pub const MOVED_NATS: f64 = 4.0;
/// A `--bind NAME=x,y` point takes the detection within this many inches.
pub const PIN_RADIUS_IN: f64 = 1.0;
/// Integer cost units per nat (the assignment solver works on integers).
const UNITS_PER_NAT: f64 = 1e6;

/// Thresholds of the binding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BindParams {
    /// A figure is not looked for further than this from its known
    /// position, inches.
    pub max_move_in: f64,
    /// See [`AMBIGUITY_MARGIN_NATS`].
    pub ambiguity_margin_nats: f64,
    /// See [`STILL_SIGMA_IN`], inches.
    pub still_sigma_in: f64,
    /// See [`MOVED_NATS`].
    pub moved_nats: f64,
    /// See [`PIN_RADIUS_IN`], inches.
    pub pin_radius_in: f64,
}

impl Default for BindParams {
    fn default() -> Self {
        Self {
            max_move_in: MAX_MOVE_IN,
            ambiguity_margin_nats: AMBIGUITY_MARGIN_NATS,
            still_sigma_in: STILL_SIGMA_IN,
            moved_nats: MOVED_NATS,
            pin_radius_in: PIN_RADIUS_IN,
        }
    }
}

/// The player's hints: figures pinned to a point, figures kept where the
/// scenario puts them (the camera cannot see them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BindHints {
    pub pins: Vec<(FigureId, Point2<f64>)>,
    pub keep: Vec<FigureId>,
}

/// One figure bound to one detection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bound {
    pub figure: FigureId,
    pub name: String,
    /// Index into the detections.
    pub detection: usize,
    pub x_in: f64,
    pub y_in: f64,
    /// The photo's facing, or the scenario's when the front mark was not seen.
    pub facing_deg: f64,
    pub facing_seen: bool,
    /// From the scenario position to the photo's, inches.
    pub moved_in: f64,
}

/// A detection no figure took.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unexplained {
    pub detection: usize,
    pub x_in: f64,
    pub y_in: f64,
    pub edge: EdgeColour,
    pub base: BaseKind,
}

/// The result of binding a photo to a game.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PhotoBinding {
    pub bound: Vec<Bound>,
    /// Figures left where the scenario puts them (`keep`).
    pub kept: Vec<String>,
    pub unexplained: Vec<Unexplained>,
}

/// Why the photo cannot be bound to the game's figures. Every problem is
/// listed, each with what the player can do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BindError {
    #[error("the photo's figures cannot be matched to the scenario's:\n{}", .problems.join("\n"))]
    Problems { problems: Vec<String> },
}

/// The base kind of a figure's footprint.
pub fn base_kind(f: &Figure) -> BaseKind {
    match f.placement.shape {
        BaseShape::Round { .. } => BaseKind::Foot,
        BaseShape::Rect { .. } => BaseKind::Mounted,
    }
}

fn describe(f: &Figure, edge: Option<EdgeColour>) -> String {
    let p = f.placement.center_in_table;
    format!(
        "{} ({}{} base, scenario position {:.1},{:.1})",
        f.name,
        edge.map_or_else(String::new, |e| format!("{} ", e.name())),
        base_kind(f).name(),
        p.x,
        p.y
    )
}

/// Binds the detections of a photo to the figures of a game that should be
/// on the table (alive, not concealed, not kept). `edge_of` gives the edge
/// colour a figure's base must have, if the rule set fixes it.
///
/// The steps: the player's pins are placed, the cost of each figure being
/// each detection is set, the best assignment is found and every figure it
/// leaves unbound or with a close second binding is a problem; with no
/// problem, the binding is read off the assignment.
pub fn bind_detections(
    state: &GameState,
    detections: &[Detection],
    edge_of: &dyn Fn(&Figure) -> Option<EdgeColour>,
    hints: &BindHints,
    params: &BindParams,
) -> Result<PhotoBinding, BindError> {
    let binder = Binder {
        state,
        detections,
        edge_of,
        params,
    };
    let figures: Vec<&Figure> = state
        .figures
        .iter()
        .filter(|f| f.alive() && !f.concealed && !hints.keep.contains(&f.id))
        .collect();
    let mut problems = Vec::new();
    let pinned = binder.pins(hints, &mut problems);
    let costs = binder.costs(&figures, &pinned);
    let (best, best_cols) = costs.solve(None);
    problems.extend(binder.problems(&figures, &pinned, &costs, (best, &best_cols)));
    if !problems.is_empty() {
        return Err(BindError::Problems { problems });
    }
    Ok(binder.binding(&figures, &best_cols, hints))
}

/// What one binding works on: the game, the photo's detections, the rule
/// set's edge colours and the thresholds.
struct Binder<'a> {
    state: &'a GameState,
    detections: &'a [Detection],
    edge_of: &'a dyn Fn(&Figure) -> Option<EdgeColour>,
    params: &'a BindParams,
}

impl Binder<'_> {
    /// Figure `f` may be detection `d`: same base kind and, where the rule
    /// set fixes it, the same edge colour.
    fn compatible(&self, f: &Figure, d: &Detection) -> bool {
        d.base == base_kind(f) && (self.edge_of)(f).is_none_or(|e| e == d.edge)
    }

    /// The pins: each pinned figure takes the compatible detection nearest
    /// its point, within [`BindParams::pin_radius_in`]. A pin with no such
    /// detection, or on a detection another pin took, is a problem.
    fn pins(&self, hints: &BindHints, problems: &mut Vec<String>) -> Vec<(FigureId, usize)> {
        let mut pinned: Vec<(FigureId, usize)> = Vec::new();
        for &(id, at) in &hints.pins {
            let Some(f) = self.state.figure(id) else {
                continue;
            };
            let nearest = self
                .detections
                .iter()
                .enumerate()
                .filter(|(_, d)| self.compatible(f, d))
                .map(|(i, d)| (i, (d.center_in_table - at).norm()))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            match nearest {
                Some((i, r)) if r <= self.params.pin_radius_in => {
                    if let Some((other, _)) = pinned.iter().find(|(_, j)| *j == i) {
                        let o = self.state.figure(*other).map_or("?", |o| o.name.as_str());
                        problems.push(format!(
                            "- {} and {o} are both bound to the figure at {at_x:.1},{at_y:.1}: give each its own point",
                            f.name,
                            at_x = at.x,
                            at_y = at.y
                        ));
                    } else {
                        pinned.push((id, i));
                    }
                }
                _ => problems.push(self.pin_not_found(f, at)),
            }
        }
        pinned
    }

    fn pin_not_found(&self, f: &Figure, at: Point2<f64>) -> String {
        let edge = (self.edge_of)(f);
        format!(
            "- {}: no {} within {:.1} in of {:.1},{:.1} on the photo: give the point where the figure stands",
            describe(f, edge),
            edge.map_or_else(
                || format!("{} base", base_kind(f).name()),
                |e| format!("{} {} base", e.name(), base_kind(f).name())
            ),
            self.params.pin_radius_in,
            at.x,
            at.y
        )
    }

    /// The cost (nats) of each figure being each detection.
    fn costs(&self, figures: &[&Figure], pinned: &[(FigureId, usize)]) -> Costs {
        let params = self.params;
        let dist =
            |f: &Figure, d: &Detection| (d.center_in_table - f.placement.center_in_table).norm();
        let cost = figures
            .iter()
            .map(|f| {
                let pin = pinned.iter().find(|(id, _)| *id == f.id).map(|p| p.1);
                self.detections
                    .iter()
                    .enumerate()
                    .map(|(c, d)| match pin {
                        Some(p) if p == c => Some(0.0),
                        Some(_) => None,
                        None if pinned.iter().any(|(_, j)| *j == c) => None,
                        None if self.compatible(f, d) && dist(f, d) <= params.max_move_in => {
                            Some(move_cost(dist(f, d), params))
                        }
                        None => None,
                    })
                    .collect()
            })
            .collect();
        Costs {
            cost,
            n_detections: self.detections.len(),
            // Dearer than any allowed move.
            miss: move_cost(params.max_move_in, params) + 1.0,
        }
    }

    /// The problems of the best assignment (`best`: its total, nats, and
    /// each figure's column): a figure it leaves unbound, and an unpinned
    /// figure whose binding, once forbidden, is replaced by one nearly as
    /// likely.
    fn problems(
        &self,
        figures: &[&Figure],
        pinned: &[(FigureId, usize)],
        costs: &Costs,
        (best, best_cols): (f64, &[Option<usize>]),
    ) -> Vec<String> {
        let mut problems = Vec::new();
        for (r, f) in figures.iter().enumerate() {
            let Some(c) = best_cols[r] else {
                problems.push(self.not_found(f));
                continue;
            };
            if pinned.iter().any(|(id, _)| *id == f.id) {
                continue;
            }
            let (alt, alt_cols) = costs.solve(Some((r, c)));
            if let Some(other) = alt_cols[r]
                && alt - best < self.params.ambiguity_margin_nats
            {
                let (a, b) = (&self.detections[c], &self.detections[other]);
                problems.push(format!(
                    "- {} could be the figure at {:.1},{:.1} or the one at {:.1},{:.1}: say which with --bind \"{}=x,y\" (or move the look-alike figures apart and photograph again)",
                    describe(f, (self.edge_of)(f)),
                    a.center_in_table.x,
                    a.center_in_table.y,
                    b.center_in_table.x,
                    b.center_in_table.y,
                    f.name
                ));
            }
        }
        problems
    }

    fn not_found(&self, f: &Figure) -> String {
        let edge = (self.edge_of)(f);
        format!(
            "- {} is not on the photo within {:.0} in of where the scenario puts him: check that his base and its {}edge are in view (no hand or terrain over it) and photograph again, give his place with --bind \"{}=x,y\", or keep the scenario position with --keep \"{}\"",
            describe(f, edge),
            self.params.max_move_in,
            edge.map_or_else(String::new, |e| format!("{} ", e.name())),
            f.name,
            f.name
        )
    }

    /// The binding read off the assignment: the bound figures, the kept
    /// ones and the detections no figure took.
    fn binding(
        &self,
        figures: &[&Figure],
        best_cols: &[Option<usize>],
        hints: &BindHints,
    ) -> PhotoBinding {
        let mut out = PhotoBinding::default();
        for (r, f) in figures.iter().enumerate() {
            let Some(c) = best_cols[r] else { continue };
            let d = &self.detections[c];
            out.bound.push(Bound {
                figure: f.id,
                name: f.name.clone(),
                detection: c,
                x_in: d.center_in_table.x,
                y_in: d.center_in_table.y,
                facing_deg: d.facing_deg.unwrap_or(f.placement.facing_deg),
                facing_seen: d.facing_deg.is_some(),
                moved_in: (d.center_in_table - f.placement.center_in_table).norm(),
            });
        }
        for id in &hints.keep {
            if let Some(f) = self.state.figure(*id) {
                out.kept.push(f.name.clone());
            }
        }
        for (c, d) in self.detections.iter().enumerate() {
            if !best_cols.contains(&Some(c)) {
                out.unexplained.push(Unexplained {
                    detection: c,
                    x_in: d.center_in_table.x,
                    y_in: d.center_in_table.y,
                    edge: d.edge,
                    base: d.base,
                });
            }
        }
        out
    }
}

/// The assignment problem of one binding: `cost[r][c]` is the cost (nats)
/// of figure `r` being detection `c`, or `None` where the pair is not
/// allowed (incompatible, too far, or against a pin).
struct Costs {
    cost: Vec<Vec<Option<f64>>>,
    n_detections: usize,
    /// The cost of leaving a figure unbound, nats.
    miss: f64,
}

impl Costs {
    /// The least-cost assignment with the pair `forbid` removed: its total
    /// (nats) and each figure's detection.
    fn solve(&self, forbid: Option<(usize, usize)>) -> (f64, Vec<Option<usize>>) {
        assign(
            &self.cost,
            self.cost.len(),
            self.n_detections,
            self.miss,
            forbid,
        )
    }
}

/// The cost, in nats, of a figure being found `d_in` inches from where it
/// was recorded: the lesser of "it stayed" (Gaussian, sigma
/// [`BindParams::still_sigma_in`]) and "it moved" ([`BindParams::moved_nats`]
/// plus the log of the distance: a move's length is spread evenly, so its
/// end is spread over a ring that grows with it).
pub fn move_cost(d_in: f64, params: &BindParams) -> f64 {
    let z = d_in / params.still_sigma_in.max(f64::EPSILON);
    (0.5 * z * z).min(params.moved_nats + d_in.ln_1p())
}

/// The least-cost assignment of rows (figures) to columns (detections) or
/// to "not found" at `miss` each; `forbid` removes one pair. Returns the
/// total cost (nats) and each row's column.
fn assign(
    cost: &[Vec<Option<f64>>],
    n_r: usize,
    n_c: usize,
    miss: f64,
    forbid: Option<(usize, usize)>,
) -> (f64, Vec<Option<usize>>) {
    if n_r == 0 {
        return (0.0, Vec::new());
    }
    let units = |x: f64| (x * UNITS_PER_NAT).round() as i64;
    let miss_u = units(miss);
    // Dearer than leaving every figure unbound: never chosen.
    let forbidden = miss_u.saturating_mul(2 * (n_r + n_c) as i64 + 2);
    // Square matrix: figures then one row per detection (left unexplained
    // at no cost); detections then one "not found" column per figure.
    let n = n_r + n_c;
    let mut m = Matrix::new(n, n, forbidden);
    for r in 0..n_r {
        for c in 0..n_c {
            if forbid == Some((r, c)) {
                continue;
            }
            if let Some(x) = cost[r][c] {
                m[(r, c)] = units(x);
            }
        }
        m[(r, n_c + r)] = miss_u;
    }
    for c in 0..n_c {
        m[(n_r + c, c)] = 0;
        for r in 0..n_r {
            m[(n_r + c, n_c + r)] = 0;
        }
    }
    let (total, col_of_row) = kuhn_munkres_min(&m);
    let cols = (0..n_r)
        .map(|r| {
            let c = col_of_row[r];
            (c < n_c).then_some(c)
        })
        .collect();
    (total as f64 / UNITS_PER_NAT, cols)
}

/// Puts the bound figures where the photo shows them, with the photo's
/// position uncertainty.
pub fn apply_binding(state: &mut GameState, detections: &[Detection], binding: &PhotoBinding) {
    for b in &binding.bound {
        let Some(d) = detections.get(b.detection) else {
            continue;
        };
        if let Some(f) = state.figures.get_mut(b.figure.index()) {
            f.placement.center_in_table = d.center_in_table;
            f.placement.facing_deg = b.facing_deg;
            f.placement.sigma_in = d.position_sigma_in;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Scenario;
    use crate::rules::Registry;
    use crate::spec::SourceFile;

    const SCENARIO: &str = r#"
name = "binding"
rule_set = "stand-to"
[table]
width_in = 48.0
depth_in = 48.0
[[side]]
name = "British"
kind = "european"
[[side]]
name = "Zulu"
kind = "native"
[[figure]]
name = "Bell"
rank = "private"
side = "British"
weapon = "breech-loading-rifle"
melee_weapon = "spear-bayonet"
experience = 3
x_in = 10.0
y_in = 10.0
facing_deg = 0.0
base = "foot"
[[figure]]
name = "Hale"
rank = "nco"
side = "British"
weapon = "breech-loading-rifle"
melee_weapon = "spear-bayonet"
experience = 3
x_in = 11.0
y_in = 10.0
facing_deg = 0.0
base = "foot"
[[figure]]
name = "Mbeki"
rank = "warrior"
side = "Zulu"
weapon = "thrown-spear"
melee_weapon = "spear-bayonet"
experience = 6
x_in = 30.0
y_in = 30.0
facing_deg = 180.0
base = "foot"
"#;

    fn state() -> GameState {
        let reg = Registry::builtin().unwrap();
        Scenario::from_source(&SourceFile::from_text("t.toml", SCENARIO), &reg)
            .unwrap()
            .state
    }

    fn det(x: f64, y: f64, edge: EdgeColour, facing: Option<f64>) -> Detection {
        Detection {
            center_in_table: Point2::new(x, y),
            facing_deg: facing,
            edge,
            base: BaseKind::Foot,
            confidence: 0.9,
            position_sigma_in: 0.02,
            appearance: None,
            side: Default::default(),
        }
    }

    /// Stand To!'s edges: 3 is trained (white), 6 a fanatic (red).
    fn edge(f: &Figure) -> Option<EdgeColour> {
        Some(if f.experience == 6 {
            EdgeColour::Red
        } else {
            EdgeColour::White
        })
    }

    /// Trained British privates at the given points.
    fn privates(points: &[(f64, f64)]) -> GameState {
        let mut text = String::from(
            "name = \"b\"\nrule_set = \"stand-to\"\n[table]\nwidth_in = 48.0\ndepth_in = 48.0\n[[side]]\nname = \"British\"\nkind = \"european\"\n",
        );
        for (i, (x, y)) in points.iter().enumerate() {
            text.push_str(&format!(
                "[[figure]]\nname = \"P{i}\"\nrank = \"private\"\nside = \"British\"\nweapon = \"breech-loading-rifle\"\nmelee_weapon = \"spear-bayonet\"\nexperience = 3\nx_in = {x}\ny_in = {y}\nfacing_deg = 0.0\nbase = \"foot\"\n"
            ));
        }
        let reg = Registry::builtin().unwrap();
        Scenario::from_source(&SourceFile::from_text("t.toml", text), &reg)
            .unwrap()
            .state
    }

    #[test]
    fn one_figure_that_moved_far_beats_a_chain_of_small_moves() {
        // A column 2.5 in apart; the last man ran 7.5 in to the front.
        // Least squares would move all three up one place instead.
        let s = privates(&[(30.0, 30.0), (30.0, 27.5), (30.0, 25.0)]);
        let d = vec![
            det(30.0, 32.5, EdgeColour::White, Some(90.0)),
            det(30.02, 30.0, EdgeColour::White, None),
            det(30.0, 27.49, EdgeColour::White, None),
        ];
        let b =
            bind_detections(&s, &d, &edge, &BindHints::default(), &BindParams::default()).unwrap();
        let cols: Vec<usize> = b.bound.iter().map(|x| x.detection).collect();
        assert_eq!(cols, [1, 2, 0]);
        assert!((b.bound[2].moved_in - 7.5).abs() < 1e-9);
        assert!(b.bound[2].facing_seen && !b.bound[0].facing_seen);
        assert_eq!(b.bound[0].facing_deg, 0.0, "unseen facing: the scenario's");
        let mut s2 = s.clone();
        apply_binding(&mut s2, &d, &b);
        assert_eq!(
            s2.figures[2].placement.center_in_table,
            Point2::new(30.0, 32.5)
        );
        assert_eq!(s2.figures[2].placement.sigma_in, 0.02);
    }

    #[test]
    fn look_alikes_that_moved_together_are_ambiguous() {
        let s = privates(&[(10.0, 10.0), (11.0, 10.0)]);
        let d = vec![
            det(10.0, 16.0, EdgeColour::White, None),
            det(11.0, 16.0, EdgeColour::White, None),
        ];
        let err = bind_detections(&s, &d, &edge, &BindHints::default(), &BindParams::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("P0 (white foot base") && err.contains("--bind \"P0=x,y\""),
            "{err}"
        );
        // Standing still, they are not.
        let d = vec![
            det(10.03, 10.0, EdgeColour::White, None),
            det(11.0, 10.04, EdgeColour::White, None),
        ];
        assert!(
            bind_detections(&s, &d, &edge, &BindHints::default(), &BindParams::default()).is_ok()
        );
    }

    #[test]
    fn edge_colour_decides_between_near_figures() {
        let s = state();
        // A red figure right where Bell stood is not Bell.
        let d = vec![
            det(10.0, 10.0, EdgeColour::Red, None),
            det(11.0, 10.0, EdgeColour::White, None),
            det(12.5, 10.0, EdgeColour::White, None),
        ];
        let err = bind_detections(&s, &d, &edge, &BindHints::default(), &BindParams::default())
            .unwrap_err()
            .to_string();
        // Mbeki is 20 in from the red figure: not found, and told what to do.
        assert!(err.contains("Mbeki"), "{err}");
        assert!(err.contains("--keep \"Mbeki\""), "{err}");
        assert!(!err.contains("- Bell"), "{err}");
    }

    #[test]
    fn a_swap_that_fits_as_well_is_ambiguous_until_pinned() {
        let s = state();
        // Bell (10,10) and Hale (11,10) now stand one above the other,
        // both 0.5 in from the midpoint: either could be either.
        let d = vec![
            det(10.5, 10.5, EdgeColour::White, None),
            det(10.5, 9.5, EdgeColour::White, None),
            det(30.0, 30.0, EdgeColour::Red, None),
        ];
        let err = bind_detections(&s, &d, &edge, &BindHints::default(), &BindParams::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("Bell") && err.contains("Hale"), "{err}");
        assert!(err.contains("--bind \"Bell=x,y\""), "{err}");
        let hints = BindHints {
            pins: vec![(FigureId(0), Point2::new(10.4, 9.6))],
            keep: Vec::new(),
        };
        let b = bind_detections(&s, &d, &edge, &hints, &BindParams::default()).unwrap();
        assert_eq!(b.bound[0].detection, 1);
        assert_eq!(b.bound[1].detection, 0);
    }

    #[test]
    fn keep_leaves_an_unseen_figure_and_extra_figures_are_reported() {
        let s = state();
        let d = vec![
            det(10.0, 10.0, EdgeColour::White, None),
            det(11.0, 10.0, EdgeColour::White, None),
            det(40.0, 5.0, EdgeColour::Green, None),
        ];
        let hints = BindHints {
            pins: Vec::new(),
            keep: vec![FigureId(2)],
        };
        let b = bind_detections(&s, &d, &edge, &hints, &BindParams::default()).unwrap();
        assert_eq!(b.kept, ["Mbeki"]);
        assert_eq!(b.unexplained.len(), 1);
        assert_eq!(b.unexplained[0].edge, EdgeColour::Green);
    }

    #[test]
    fn a_pin_far_from_any_figure_is_refused() {
        let s = state();
        let d = vec![det(10.0, 10.0, EdgeColour::White, None)];
        let hints = BindHints {
            pins: vec![(FigureId(0), Point2::new(20.0, 20.0))],
            keep: vec![FigureId(1), FigureId(2)],
        };
        let err = bind_detections(&s, &d, &edge, &hints, &BindParams::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no white foot base within 1.0 in of 20.0,20.0"),
            "{err}"
        );
    }
}
