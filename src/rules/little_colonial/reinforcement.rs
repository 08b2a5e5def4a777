//! The optional rule "restricting how and when the benefits of
//! reinforcements are applied" by line of sight:
//! - "IF ANY figure, in clear terrain, can physically SEE the reinforcements
//!   then it is considered that ALL figures, in that immediate unit /
//!   formation (i.e., squad), can see the reinforcements and the benefits
//!   are immediately applied."
//! - "If a formation is surrounded by blocking terrain but has at least one
//!   unit at the EDGE of the blocking terrain (in or out of, is not a
//!   consideration, as long as the figure is adjacent to the edge) with a
//!   clear view of the reinforcements, then the morale benefit is applied at
//!   the beginning of the NEXT player turn."
//! - "If a figure or unit is DEEP within blocking terrain, then
//!   reinforcements MUST make physical (base to base)contact before ANY
//!   benefits are applied. If the unit / figure in blocking terrain is in
//!   close (base to base)formation then the results are applied
//!   immediately. If the unit / figure is in loose (open) formation, the
//!   benefits to morale to the entire unit cannot be applied until the next
//!   turn."
//!
//! # Conventions
//! In play when every side's status says `reinforcement-sight = "true"`.
//! A "unit / formation" is a scenario unit, or a figure in none. Blocking
//! terrain is a `blocking` area; clear terrain is outside every one; "at
//! the edge" and "base to base" are a base within `close_combat.flank_gap_cm`
//! (edge to edge) of the area's outline or of the other base. The order
//! deck has no player turns: "the next player turn" is the next turn (after
//! the next End of Turn). Checked when the reinforcements arrive and, for a
//! group still waiting, after every action.

use super::demoralised;
use super::engine::{LittleColonialRules, fig_event, in_the_fight, side_st, st};
use super::event::{Event as LcEvent, Group};
use super::status::MoraleDelay;
use crate::core::Length;
use crate::geometry::{RangeMethod, TerrainKind, point_in_polygon, segment_base_distance_in};
use crate::rules::common::Work;
use crate::rules::{Event, Figure, FigureId, GameState};

/// How the reinforcements' benefit reaches a group.
#[derive(Debug, Clone, PartialEq)]
enum Reach {
    /// Now: seen from clear terrain, or touched in close formation.
    Now(String),
    /// At the start of the next turn: seen from the edge of blocking
    /// terrain, or touched in loose formation.
    NextTurn(String),
    /// Not yet: it waits for their base to base contact.
    Waits(String),
}

impl LittleColonialRules {
    /// The optional delay is in play when every side agreed.
    pub(super) fn reinforcement_sight_rule(state: &GameState) -> bool {
        !state.sides.is_empty()
            && (0..state.sides.len()).all(|i| side_st(state, i).reinforcement_sight)
    }

    /// The delay `f` waits out: his unit's, or his own when in none.
    fn delay_of<'a>(state: &'a GameState, f: &'a Figure) -> Option<&'a MoraleDelay> {
        match state.units.iter().find(|u| u.figures.contains(&f.id)) {
            Some(u) => u.rules.little_colonial()?.morale_delay.as_ref(),
            None => st(f).morale_delay.as_ref(),
        }
    }

    /// The morale piles counted empty for `f`: his side's, or more while he
    /// waits out the reinforcements' benefit.
    pub(super) fn empty_piles_for(state: &GameState, f: &Figure) -> usize {
        let empty = side_st(state, f.side).empty_piles();
        Self::delay_of(state, f)
            .and_then(|d| d.held_at(state.turn))
            .map_or(empty, |held| held.max(empty))
    }

    /// Each group of `side`: its units, then its figures in no unit.
    fn groups(state: &GameState, side: usize) -> Vec<(Group, Vec<FigureId>)> {
        let units = state
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.side == side);
        let mut groups: Vec<(Group, Vec<FigureId>)> = units
            .map(|(i, u)| (Group::Unit(i), u.figures.clone()))
            .collect();
        let alone = state
            .figures
            .iter()
            .filter(|f| f.side == side && !state.units.iter().any(|u| u.figures.contains(&f.id)));
        groups.extend(alone.map(|f| (Group::Figure(f.id), vec![f.id])));
        groups
    }

    /// The group's stored delay.
    fn group_delay(state: &GameState, group: Group) -> Option<&MoraleDelay> {
        match group {
            Group::Unit(u) => state
                .units
                .get(u)?
                .rules
                .little_colonial()?
                .morale_delay
                .as_ref(),
            Group::Figure(id) => st(state.figure(id)?).morale_delay.as_ref(),
        }
    }

    /// The reinforcements `by` of `side` arrived: `before` piles were empty
    /// before their chits joined. Each group whose demoralised men the
    /// chits restore gets the benefit now, next turn, or on contact.
    pub(super) fn delay_reinforcement_benefit(
        &self,
        work: &mut Work,
        side: usize,
        before: usize,
        by: &[FigureId],
    ) {
        if !Self::reinforcement_sight_rule(&work.now) {
            return;
        }
        let now = work.now.clone();
        let after = side_st(&now, side).empty_piles();
        for (group, ids) in Self::groups(&now, side) {
            let members = self.members(&now, &ids, by);
            let old = Self::group_delay(&now, group);
            let held = old
                .and_then(|d| d.held_at(now.turn))
                .map_or(before, |h| h.max(before));
            let restored = members.iter().any(|f| {
                let (level, rallied) = (st(f).level.name(), st(f).rallied_at);
                demoralised(&self.data, level, held, rallied)
                    && !demoralised(&self.data, level, after, rallied)
            });
            if !restored {
                continue;
            }
            let mut all_by: Vec<FigureId> = match old {
                Some(MoraleDelay::Contact { by: b, .. }) => b.clone(),
                _ => Vec::new(),
            };
            for id in by {
                if !all_by.contains(id) {
                    all_by.push(*id);
                }
            }
            self.reach_group(work, group, &members, held, &all_by);
        }
    }

    /// After an action: each group still waiting for the reinforcements'
    /// contact is looked at again (they may have come into its sight, or
    /// touched it).
    pub(super) fn review_morale_delays(&self, work: &mut Work) {
        if !Self::reinforcement_sight_rule(&work.now) {
            return;
        }
        let now = work.now.clone();
        for side in 0..now.sides.len() {
            for (group, ids) in Self::groups(&now, side) {
                let Some(MoraleDelay::Contact { held_at, by }) = Self::group_delay(&now, group)
                else {
                    continue;
                };
                let members = self.members(&now, &ids, by);
                if !members.is_empty() {
                    self.reach_group(work, group, &members, *held_at, by);
                }
            }
        }
    }

    /// The group's men in the fight (not one of the reinforcements).
    fn members<'a>(
        &self,
        state: &'a GameState,
        ids: &[FigureId],
        by: &[FigureId],
    ) -> Vec<&'a Figure> {
        ids.iter()
            .filter(|id| !by.contains(id))
            .filter_map(|id| state.figure(*id))
            .filter(|f| in_the_fight(f))
            .collect()
    }

    /// Records how the benefit reaches the group, with a note.
    fn reach_group(
        &self,
        work: &mut Work,
        group: Group,
        members: &[&Figure],
        held_at: usize,
        by: &[FigureId],
    ) {
        let now = work.now.clone();
        let reinforcements: Vec<&Figure> = by
            .iter()
            .filter_map(|id| now.figure(*id))
            .filter(|f| in_the_fight(f))
            .collect();
        let name = match group {
            Group::Unit(u) => now.units.get(u).map_or("?", |u| u.name.as_str()),
            Group::Figure(_) => members.first().map_or("?", |f| f.name.as_str()),
        }
        .to_owned();
        let old = Self::group_delay(&now, group).cloned();
        let (delay, why) = match self.reach(&now, members, &reinforcements) {
            Reach::Now(why) => (None, format!("{why}: the morale benefit applies at once")),
            Reach::NextTurn(why) => (
                Some(MoraleDelay::Turn {
                    turn: now.turn + 1,
                    held_at,
                }),
                format!(
                    "{why}: the morale benefit applies at the start of turn {}",
                    now.turn + 1
                ),
            ),
            Reach::Waits(why) => (
                Some(MoraleDelay::Contact {
                    held_at,
                    by: by.to_vec(),
                }),
                format!("{why}: the morale benefit waits for the reinforcements' base contact"),
            ),
        };
        if delay == old {
            return;
        }
        work.note(format!("{name}: {why}"));
        work.push(fig_event(LcEvent::MoraleDelayed { group, delay }));
    }

    /// How the benefit reaches `members` from `reinforcements`: seen from
    /// clear terrain, or touched in close formation: now; seen from the
    /// edge of blocking terrain, or touched in loose formation: next turn;
    /// else it waits.
    fn reach(&self, state: &GameState, members: &[&Figure], reinforcements: &[&Figure]) -> Reach {
        let seen = |f: &Figure| {
            reinforcements.iter().find(|r| {
                self.sight(state, f, &r.placement, self.height_ft(r))
                    .clear
                    .value
            })
        };
        let clear = members
            .iter()
            .filter(|f| Self::blocking_area_holding(state, f).is_none())
            .find_map(|f| seen(f).map(|r| (f, r)));
        if let Some((f, r)) = clear {
            return Reach::Now(format!("{} sees {} from clear terrain", f.name, r.name));
        }
        let touched = members.iter().find_map(|f| {
            reinforcements
                .iter()
                .find(|r| self.adjacent_in(f, r))
                .map(|r| (f, r))
        });
        let close = self.close_formation(members);
        match touched {
            Some((f, r)) if close => {
                return Reach::Now(format!(
                    "{} reaches {} base to base, in close formation",
                    r.name, f.name
                ));
            }
            _ => {}
        }
        let edge = members
            .iter()
            .filter(|f| self.at_blocking_edge(state, f))
            .find_map(|f| seen(f).map(|r| (f, r)));
        if let Some((f, r)) = edge {
            return Reach::NextTurn(format!(
                "{} sees {} from the edge of blocking terrain",
                f.name, r.name
            ));
        }
        if let Some((f, r)) = touched {
            return Reach::NextTurn(format!(
                "{} reaches {} base to base, in loose formation",
                r.name, f.name
            ));
        }
        let deep = members
            .iter()
            .find(|f| Self::blocking_area_holding(state, f).is_some());
        Reach::Waits(match deep {
            Some(f) => format!("{} is deep within blocking terrain", f.name),
            None => "nobody of it sees the reinforcements".to_owned(),
        })
    }

    /// The blocking area whose outline holds the figure's centre.
    fn blocking_area_holding<'a>(state: &'a GameState, f: &Figure) -> Option<&'a str> {
        state
            .terrain
            .iter()
            .filter(|a| a.is(TerrainKind::Blocking) && a.polygon_in.len() >= 3)
            .find(|a| point_in_polygon(&a.polygon_in, f.placement.center_in_table))
            .map(|a| a.name.as_str())
    }

    /// "adjacent to the edge" of a blocking area, in or out of it: his base
    /// within `flank_gap_cm` of its outline.
    fn at_blocking_edge(&self, state: &GameState, f: &Figure) -> bool {
        let reach_in = self.inches(self.data.close_combat.flank_gap_cm);
        state
            .terrain
            .iter()
            .filter(|a| a.is(TerrainKind::Blocking) && a.polygon_in.len() >= 3)
            .any(|a| {
                let poly = &a.polygon_in;
                (0..poly.len()).any(|i| {
                    let (p, q) = (poly[i], poly[(i + 1) % poly.len()]);
                    segment_base_distance_in(p, q, &f.placement) <= reach_in
                })
            })
    }

    /// Base to base: the bases within `flank_gap_cm`, edge to edge.
    fn adjacent_in(&self, a: &Figure, b: &Figure) -> bool {
        let gap = self.in_cm(Length::between(
            &a.placement,
            &b.placement,
            RangeMethod::EdgeToEdge,
        ));
        gap.value() <= self.data.close_combat.flank_gap_cm
    }

    /// "close (base to base) formation": every man touches another, in one
    /// body (a man alone is in close formation).
    fn close_formation(&self, members: &[&Figure]) -> bool {
        let Some(first) = members.first() else {
            return true;
        };
        let mut joined = vec![first.id];
        let mut grew = true;
        while grew {
            grew = false;
            for f in members {
                if !joined.contains(&f.id)
                    && members
                        .iter()
                        .any(|g| joined.contains(&g.id) && self.adjacent_in(f, g))
                {
                    joined.push(f.id);
                    grew = true;
                }
            }
        }
        joined.len() == members.len()
    }
}

/// The events of an action, then what the optional reinforcement delay
/// makes of them.
pub(super) fn after_action(
    rules: &LittleColonialRules,
    state: &GameState,
    events: Vec<Event>,
) -> Vec<Event> {
    if !LittleColonialRules::reinforcement_sight_rule(state) {
        return events;
    }
    let mut work = Work::new(state);
    for e in events {
        work.push(e);
    }
    rules.review_morale_delays(&mut work);
    work.ev
}
