//! The first screen of a new game: the figures the camera sees are bound to
//! the scenario's roster (by base, edge colour and position, as `spotter
//! resolve --photo` binds them), an actor and a target are chosen so the
//! number needed and the odds show at once, and a line says what the
//! player can do next. Runs once per game, and only while nothing is bound
//! yet; a resumed game keeps its own bindings and selection.
//!
//! # Conventions
//! Seen figures by track id, game figures by [`FigureId`]; positions in
//! table inches (table frame of `TABLE_KIT.md`).

use std::path::PathBuf;

use super::logic::{AppLogic, UiCommand};
use crate::game::FigureId;
use crate::game::photo::{self, BindHints, BindParams};

/// The set-up binds only when every figure is found within this many
/// inches of its scenario position (a scenario made for this table, as the
/// demo's are); otherwise the player binds by hand.
const AUTO_BIND_MAX_MOVE_IN: f64 = 1.0;
/// Enemies tried as the first target of each actor, nearest first.
const TARGETS_PER_ACTOR: usize = 3;
/// Phases ended at most while looking for one in which the first action can
/// be taken: every phase of both sides of a turn (Soldiers in Time has
/// eight phases, each played by both sides).
const MAX_PHASES_SKIPPED: usize = 24;

/// What the first-screen set-up has done.
#[derive(Debug, Default)]
pub struct FirstGame {
    /// The game (by log) already set up, or left alone.
    done_for: Option<PathBuf>,
    /// The line shown above the view, once there is one.
    pub next_step: Option<String>,
}

impl FirstGame {
    /// Binds, selects and says what to do next, once the table is locked and
    /// figures are seen. Cheap when there is nothing to do.
    pub fn update(&mut self, logic: &mut AppLogic) {
        // Only the demo games (scenarios/demo-*.toml, logged as demo-*) for
        // now: other games keep the hand binding flow.
        let Some(log) = logic.session.as_ref().map(|s| s.log_path.clone()) else {
            self.next_step = None;
            return;
        };
        let demo = log
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("demo-"));
        if !demo {
            self.next_step = None;
            return;
        }
        self.next_step = next_step_text(logic);
        if self.done_for.as_ref() == Some(&log) {
            return;
        }
        if !logic.bindings.is_empty() {
            // A resumed game, or one the player bound by hand.
            self.done_for = Some(log);
            return;
        }
        let ready = logic.latest.as_ref().is_some_and(|p| {
            p.perception.lock.locked.is_some() && !p.perception.figures.is_empty()
        });
        if !ready {
            return;
        }
        self.done_for = Some(log);
        let bound = bind_seen(logic);
        if bound > 0 {
            logic.notice(format!(
                "bound {bound} figures the camera sees to the roster (by base, colour and position)"
            ));
            choose_first_action(logic);
        }
        self.next_step = next_step_text(logic);
    }
}

/// Binds the seen figures to the game's; returns how many were bound.
fn bind_seen(logic: &mut AppLogic) -> usize {
    let Some(session) = logic.session.as_ref() else {
        return 0;
    };
    let seen = logic.figures().to_vec();
    let detections: Vec<_> = seen.iter().map(|f| f.detection.clone()).collect();
    let rules = session.game.rules();
    let state = session.state();
    let edge_of = |f: &crate::game::Figure| rules.base_edge(state, f);
    let binding = photo::bind_detections(
        state,
        &detections,
        &edge_of,
        &BindHints::default(),
        &BindParams::default(),
    );
    match binding {
        Ok(b)
            if b.bound.is_empty() || b.bound.iter().any(|f| f.moved_in > AUTO_BIND_MAX_MOVE_IN) =>
        {
            0
        }
        Ok(b) => {
            // An uncertain figure (it may be a rock or a shadow) takes part
            // in the assignment but is never bound by itself: the player
            // binds it.
            let pairs: Vec<(u32, FigureId)> = b
                .bound
                .iter()
                .filter_map(|b| Some((seen.get(b.detection)?, b.figure)))
                .filter(|(f, _)| super::overlay::is_certain(&f.detection))
                .map(|(f, figure)| (f.id, figure))
                .collect();
            for &(track, figure) in &pairs {
                logic.apply(UiCommand::Bind { track, figure });
            }
            pairs.len()
        }
        // Not a scenario made for this table: the next-step line asks the
        // player to bind by hand.
        Err(_) => 0,
    }
}

/// Actor and target pairs to try: every bound figure with its nearest
/// enemies.
fn candidates(logic: &AppLogic) -> Vec<(FigureId, FigureId)> {
    let Some(s) = logic.session.as_ref() else {
        return Vec::new();
    };
    let state = s.state();
    let mut out = Vec::new();
    for actor in state
        .figures
        .iter()
        .filter(|f| f.alive() && logic.track_of(f.id).is_some())
    {
        let at = actor.placement.center_in_table;
        let mut enemies: Vec<_> = state
            .figures
            .iter()
            .filter(|t| t.alive() && t.side != actor.side)
            .map(|t| ((t.placement.center_in_table - at).norm(), t.id))
            .collect();
        enemies.sort_by(|a, b| a.0.total_cmp(&b.0));
        out.extend(
            enemies
                .into_iter()
                .take(TARGETS_PER_ACTOR)
                .map(|(_, t)| (actor.id, t)),
        );
    }
    out
}

/// The first pair whose first action can be taken now.
fn first_ready_pair(logic: &mut AppLogic) -> Option<(FigureId, FigureId)> {
    let pairs = candidates(logic);
    let s = logic.session.as_mut()?;
    for (actor, target) in pairs {
        s.actor = Some(actor);
        s.target = Some(target);
        s.action = 0;
        if s.preview()
            .is_some_and(|p| p.refused.is_none() && (p.needed.is_some() || !p.odds.is_empty()))
        {
            return Some((actor, target));
        }
    }
    s.actor = None;
    s.target = None;
    None
}

/// Chooses an actor and a target whose action shows its number needed and
/// odds, ending phases (each one logged, so undo takes it back) until the
/// rules allow one.
fn choose_first_action(logic: &mut AppLogic) {
    let mut ended = 0;
    let found = loop {
        if let Some(pair) = first_ready_pair(logic) {
            break Some(pair);
        }
        if ended == MAX_PHASES_SKIPPED {
            break None;
        }
        let Some(s) = logic.session.as_mut() else {
            return;
        };
        // A card-driven side opens its activation first (a card drawn);
        // otherwise the phase ends. Each is logged, so undo takes it back.
        let opened = s.open_activation().unwrap_or(false);
        if !opened && s.end_phase().is_err() {
            break None;
        }
        ended += 1;
    };
    let Some((actor, target)) = found else {
        // No action is possible in any phase: leave the turn where it was.
        if let Some(s) = logic.session.as_mut() {
            for _ in 0..ended {
                if s.undo().is_err() {
                    break;
                }
            }
        }
        return;
    };
    logic.selection.actor = logic.track_of(actor);
    logic.selection.target = logic.track_of(target);
}

/// The line that says what the player can do next.
fn next_step_text(logic: &AppLogic) -> Option<String> {
    let s = logic.session.as_ref()?;
    let bound = logic.bindings.len();
    let seen = logic.figures().len();
    if seen > 0 && bound == 0 {
        return Some(
            "Next: click a figure on the picture, then its name in the roster to bind it.".into(),
        );
    }
    match (s.actor, s.target) {
        (Some(a), Some(t)) => {
            let action = s.action_labels().get(s.action).copied().unwrap_or("act");
            let ready = s.preview().is_some_and(|p| p.refused.is_none());
            Some(if ready {
                format!(
                    "Next: press Enter to roll: {action}, {} at {}; or click another figure to choose who acts.",
                    s.name(a),
                    s.name(t)
                )
            } else {
                format!(
                    "Next: {} cannot {action} at {} now: press E to end the phase, or click other figures.",
                    s.name(a),
                    s.name(t)
                )
            })
        }
        (Some(a), None) => Some(format!(
            "Next: click the figure {} acts on (the target).",
            s.name(a)
        )),
        _ => Some("Next: click a figure to choose who acts, then its target.".into()),
    }
}
