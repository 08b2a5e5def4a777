//! The order deck's turn: drawing a card (and what its men do at once in
//! a scripted game), the End of Turn (reshuffle, reinforcements, the
//! flight of demoralised troops), reserved cards and rallying.
//!
//! # Conventions
//! Table inches in the state, cm in the rules.

use nalgebra::Point2;

use super::action::{DragParams, DrawParams, DrawThen, PlayParams, RallyParams};
use super::engine::{
    END_OF_TURN, LittleColonialRules, ORDER_DECK, card_owner, fig_event, gathered, in_the_fight,
    joined_piles, piles_text, policy, refuse, side_st, soldier_card_side, st,
};
use super::event::Event as LcEvent;
use super::status::{WoundKind, WoundedPolicy};
use crate::core::RefusalKind;
use crate::core::dice::Dice;
use crate::core::odds::named;
use crate::geometry::segment_base_distance_in;
use crate::geometry::{RangeMethod, range_in};
use crate::rules::RuleError;
use crate::rules::common::{Work, centre_gap_in, figure};
use crate::rules::deck;
use crate::rules::stand_to::Wound;
use crate::rules::{Event, Figure, FigureId, GameState, Pace, Rank};

/// A demoralised man this close to his entry point (table inches) is home.
const HOME_IN: f64 = 0.05;

impl LittleColonialRules {
    pub(super) fn check_draw(&self, state: &GameState, _p: &DrawParams) -> Result<(), RuleError> {
        let deck = state.deck(ORDER_DECK).ok_or(RuleError::Unknown {
            what: "deck",
            name: ORDER_DECK.into(),
        })?;
        if deck.draw.is_empty() {
            return Err(refuse(RefusalKind::Cards, "the order deck is empty"));
        }
        Ok(())
    }

    pub(super) fn resolve_draw(
        &self,
        state: &GameState,
        p: &DrawParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.check_draw(state, p)?;
        let mut work = Work::new(state);
        work.push(Event::Odds {
            purpose: "next order card".into(),
            odds: named(&[(
                "p_end_of_turn",
                deck::p_next(state, ORDER_DECK, false, |c| c == END_OF_TURN),
            )]),
        });
        let card = deck::draw(super::NAME, &mut work, ORDER_DECK, dice, false)?;
        if card == END_OF_TURN {
            self.end_of_turn(&mut work, &p.reinforcements, dice)?;
            return Ok(work.into_events());
        }
        if p.reserve {
            work.push(Event::CardReserved {
                deck: ORDER_DECK.into(),
                card,
            });
            return Ok(work.into_events());
        }
        work.push(fig_event(LcEvent::CardInPlay {
            card: Some(card.clone()),
        }));
        Self::spend_soldier_card(&mut work, &card);
        match p.then {
            None => {}
            Some(DrawThen::Fire) if soldier_card_side(&work.now, &card).is_some() => {
                self.soldier_fires(&mut work, &card, dice)?;
            }
            Some(DrawThen::Fire) => self.card_fires(&mut work, &card, dice)?,
        }
        Ok(work.into_events())
    }

    /// A drawn card's men act at once: the officer rallies demoralised men
    /// near him if there are any; else his guns fire and his soldiers fire
    /// at the nearest enemy, in formation.
    fn card_fires(
        &self,
        work: &mut Work,
        card: &str,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let now = work.now.clone();
        let officer = card_owner(&now, card)
            .ok_or_else(|| refuse(RefusalKind::Cards, format!("nobody holds `{card}`")))?;
        if self
            .rally_targets(&now, officer)
            .is_some_and(|v| !v.is_empty())
        {
            let rally = RallyParams {
                officer: officer.name.clone(),
            };
            work.ev.extend(self.resolve_rally(&now, &rally)?);
            return Ok(());
        }
        self.aid_wounded(work, officer, dice)?;
        self.guns_fire(work, officer, dice)?;
        let now = work.now.clone();
        let firers: Vec<&Figure> = now
            .figures
            .iter()
            .filter(|f| {
                matches!(f.rank, Rank::Private | Rank::Warrior)
                    && in_the_fight(f)
                    && self
                        .data
                        .weapons
                        .get(&f.weapon)
                        .is_some_and(|w| w.dice > 0 && w.gun.is_none())
                    && self.commanded(&now, f, true).is_ok()
            })
            .collect();
        let enemy = now
            .figures
            .iter()
            .find(|f| f.side != officer.side && in_the_fight(f));
        match (firers.is_empty(), enemy) {
            (false, Some(enemy)) => {
                let mut attempt = work.clone();
                match self.area_fire(&mut attempt, &firers, enemy.side, true, &[], dice) {
                    Ok(()) => *work = attempt,
                    Err(RuleError::Refused(why)) => {
                        work.note(format!("{}'s men do not fire: {why}", officer.name));
                    }
                    Err(e) => return Err(e),
                }
            }
            _ => work.note(format!(
                "{} has nobody to fire, or no enemy left",
                officer.name
            )),
        }
        Ok(())
    }

    /// "If a player chose to be Compassionate he must do all that is
    /// reasonably possible to give aid and succour to his seriously
    /// wounded": each seriously wounded man in the officer's command
    /// radius is dragged a full move away from the nearest enemy by the
    /// nearest man beside him who may act on the card.
    fn aid_wounded(
        &self,
        work: &mut Work,
        officer: &Figure,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        if policy(&work.now, officer.side) != Some(WoundedPolicy::Compassionate) {
            return Ok(());
        }
        let now = work.now.clone();
        let radius = self.radius_in(officer);
        let wounded = now.figures.iter().filter(|w| {
            w.side == officer.side
                && w.wound == Some(Wound::Serious)
                && st(w).wound.is_some_and(WoundKind::serious)
                && !gathered(w)
                && centre_gap_in(w, officer) <= radius
        });
        for w in wounded {
            let contact_in = self.inches(self.data.close_combat.contact_cm);
            let gap =
                |h: &Figure| range_in(&h.placement, &w.placement, RangeMethod::EdgeToEdge).value_in;
            let helper = now
                .figures
                .iter()
                .filter(|h| {
                    h.side == w.side
                        && h.id != w.id
                        && matches!(h.rank, Rank::Private | Rank::Warrior)
                        && gap(h) <= contact_in
                        && self.commanded(&work.now, h, true).is_ok()
                })
                .min_by(|a, b| gap(a).total_cmp(&gap(b)));
            let enemy = now
                .figures
                .iter()
                .filter(|e| e.side != w.side && in_the_fight(e))
                .min_by(|a, b| centre_gap_in(a, w).total_cmp(&centre_gap_in(b, w)));
            let (Some(h), Some(e)) = (helper, enemy) else {
                continue;
            };
            let away = w.placement.center_in_table - e.placement.center_in_table;
            if away.norm() <= f64::EPSILON {
                continue;
            }
            let to = h.placement.center_in_table
                + away.normalize() * self.inches(self.data.movement.regular_cm);
            let p = DragParams {
                wounded: w.name.clone(),
                helpers: vec![h.name.clone()],
                to_in: [to.x, to.y],
            };
            match self.resolve_drag(&work.now, &p, dice) {
                Ok(ev) => {
                    for e in ev {
                        work.push(e);
                    }
                }
                Err(RuleError::Refused(why)) => {
                    work.note(format!("{} is not dragged: {why}", w.name));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// End of Turn: demoralised troops fall back (or surrender); discards
    /// and held cards go back; reinforcements due next turn come on, their
    /// cards join the deck and their chits the force's.
    fn end_of_turn(
        &self,
        work: &mut Work,
        extra: &[String],
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        self.demoralised_fall_back(work, dice)?;
        let next = work.now.turn + 1;
        let now = work.now.clone();
        let arriving: Vec<&Figure> = now
            .figures
            .iter()
            .filter(|f| st(f).arrives.is_some_and(|t| t <= next) && f.active())
            .collect();
        let mut added: Vec<String> = extra.to_vec();
        added.extend(self.cards_joining(&now, &arriving));
        work.push(Event::DeckShuffled {
            deck: ORDER_DECK.into(),
            added,
        });
        work.push(fig_event(LcEvent::CardInPlay { card: None }));
        let before: Vec<usize> = (0..now.sides.len())
            .map(|side| side_st(&work.now, side).empty_piles())
            .collect();
        for side in 0..now.sides.len() {
            let men = arriving.iter().filter(|f| f.side == side).count();
            if men == 0 {
                continue;
            }
            let theirs = self.side_piles(&work.now, side, men);
            let piles = joined_piles(&work.now, side, &theirs);
            work.note(format!(
                "{men} reinforcements arrive for {}: chits {} + {} = {}",
                now.sides[side].name,
                piles_text(side_st(&work.now, side).piles()),
                piles_text(&theirs),
                piles_text(&piles)
            ));
            self.set_piles(work, side, &piles);
        }
        for f in &arriving {
            work.push(fig_event(LcEvent::Arrived { figure: f.id }));
        }
        work.push(Event::PhaseChanged {
            turn: next,
            active_side: 0,
            phase: 0,
        });
        let by: Vec<FigureId> = arriving.iter().map(|f| f.id).collect();
        for (side, before) in before.into_iter().enumerate() {
            if arriving.iter().any(|f| f.side == side) {
                self.delay_reinforcement_benefit(work, side, before, &by);
            }
        }
        Ok(())
    }

    /// "A demoralised troop moves at twice its usual movement allowance,
    /// away from the enemy and towards its entry / starting point, each
    /// time the End of Turn card is drawn. If this point is blocked by
    /// enemy forces, the demoralised forces surrender."
    fn demoralised_fall_back(&self, work: &mut Work, dice: &mut dyn Dice) -> Result<(), RuleError> {
        let now = work.now.clone();
        let fleeing: Vec<&Figure> = now
            .figures
            .iter()
            .filter(|f| in_the_fight(f) && self.is_demoralised(&now, f))
            .collect();
        for f in fleeing {
            let Some([x, y]) = st(f).entry_in else {
                continue;
            };
            let home = Point2::new(x, y);
            let here = f.placement.center_in_table;
            if (home - here).norm() <= HOME_IN {
                continue;
            }
            if let Some(enemy) = self.blocking_enemy(&work.now, f, home) {
                work.note(format!(
                    "{} is demoralised and {} blocks his way back: he surrenders",
                    f.name, enemy
                ));
                work.push(fig_event(LcEvent::Surrendered { figure: f.id }));
                self.casualties(work, f.side, 1);
                continue;
            }
            let (allowance, _, _) = self.allowance(work, f, dice)?;
            let factor = self.data.morale.flee_allowance_factor;
            let me = work.fig(f.id)?.clone();
            let walk = self.walk(
                work,
                &me,
                &[here, home],
                allowance * factor,
                false,
                1.0,
                dice,
            )?;
            work.note(format!(
                "{} is demoralised: he falls back {:.1} cm ({factor} x {allowance:.1} cm) toward his entry point",
                f.name,
                self.cm(walk.walked_in)
            ));
            work.push(Event::Moved {
                figure: f.id,
                to_in: walk.to,
                facing_deg: crate::geometry::normalize_deg(walk.heading_deg),
                pace: Pace::Walk,
                distance_in: walk.walked_in,
                through_rough: false,
            });
            self.ruthless_wounded_taken(work, f.id)?;
        }
        Ok(())
    }

    /// The enemy in the fight whose base stands within stopping distance
    /// of the straight way from `f` to his entry point, if any.
    fn blocking_enemy(&self, state: &GameState, f: &Figure, home: Point2<f64>) -> Option<String> {
        let reach_in = self.inches(self.data.movement.stop_near_enemy_cm);
        let here = f.placement.center_in_table;
        state
            .figures
            .iter()
            .filter(|e| e.side != f.side && in_the_fight(e))
            .find(|e| segment_base_distance_in(here, home, &e.placement) <= reach_in)
            .map(|e| e.name.clone())
    }

    pub(super) fn check_play(state: &GameState, p: &PlayParams) -> Result<(), RuleError> {
        let held = state
            .deck(ORDER_DECK)
            .is_some_and(|d| d.held.contains(&p.card));
        if held {
            Ok(())
        } else {
            Err(refuse(
                RefusalKind::Cards,
                format!("`{}` is not held in reserve", p.card),
            ))
        }
    }

    pub(super) fn resolve_play(state: &GameState, p: &PlayParams) -> Result<Vec<Event>, RuleError> {
        Self::check_play(state, p)?;
        let mut work = Work::new(state);
        work.push(Event::CardPlayed {
            deck: ORDER_DECK.into(),
            card: p.card.clone(),
        });
        work.push(fig_event(LcEvent::CardInPlay {
            card: Some(p.card.clone()),
        }));
        Self::spend_soldier_card(&mut work, &p.card);
        Ok(work.into_events())
    }

    /// An individual soldier card that comes into play is spent: "these
    /// cards are limited", it does not go back at End of Turn.
    fn spend_soldier_card(work: &mut Work, card: &str) {
        if soldier_card_side(&work.now, card).is_some() {
            work.note(format!("`{card}` is played: an individual soldier acts"));
            work.push(fig_event(LcEvent::CardSpent {
                card: card.to_owned(),
            }));
        }
    }

    /// A drawn soldier card in a scripted game: the side's rifleman
    /// nearest an enemy fires alone at that enemy.
    fn soldier_fires(
        &self,
        work: &mut Work,
        card: &str,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let now = work.now.clone();
        let Some(side) = soldier_card_side(&now, card) else {
            return Ok(());
        };
        let near = |f: &Figure| {
            now.figures
                .iter()
                .filter(|e| e.side != side && in_the_fight(e))
                .map(|e| (e, centre_gap_in(f, e)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
        };
        let pick = now
            .figures
            .iter()
            .filter(|f| {
                f.side == side
                    && matches!(f.rank, Rank::Private | Rank::Warrior)
                    && in_the_fight(f)
                    && self.fire_dice(f).is_ok_and(|(n, _)| n > 0)
                    && self.commanded(&now, f, true).is_ok()
            })
            .filter_map(|f| near(f).map(|(e, d)| (f, e, d)))
            .min_by(|a, b| a.2.total_cmp(&b.2));
        let Some((f, e, _)) = pick else {
            work.note(format!("nobody acts on `{card}`"));
            return Ok(());
        };
        let fire = super::action::FireParams {
            firers: vec![f.name.clone()],
            target: e.name.clone(),
            formation: false,
            individual: true,
            remove: Vec::new(),
        };
        match self.resolve_fire(&now, &fire, dice) {
            Ok(ev) => {
                for e in ev {
                    work.push(e);
                }
            }
            Err(RuleError::Refused(why)) => {
                work.note(format!("{} does not fire on `{card}`: {why}", f.name));
            }
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// The demoralised men an officer or NCO could rally (None: he may not
    /// rally).
    pub(super) fn rally_targets(&self, state: &GameState, o: &Figure) -> Option<Vec<FigureId>> {
        if !matches!(o.rank, Rank::Officer | Rank::Nco | Rank::Chief)
            || !in_the_fight(o)
            || self.is_demoralised(state, o)
        {
            return None;
        }
        let radius = self.radius_in(o) * self.data.command.rally_fraction_of_radius;
        Some(
            state
                .figures
                .iter()
                .filter(|f| {
                    f.side == o.side
                        && in_the_fight(f)
                        && self.is_demoralised(state, f)
                        && centre_gap_in(f, o) <= radius
                })
                .map(|f| f.id)
                .collect(),
        )
    }

    /// Only the officer or NCO whose card is in play rallies.
    pub(super) fn check_rally<'a>(
        &self,
        state: &'a GameState,
        p: &RallyParams,
    ) -> Result<&'a Figure, RuleError> {
        let o = figure(state, &p.officer)?;
        let owner = self.commanded(state, o, false)?;
        if owner.id != o.id || !matches!(o.rank, Rank::Officer | Rank::Nco | Rank::Chief) {
            return Err(refuse(
                RefusalKind::Morale,
                format!(
                    "only the officer or NCO whose card is in play rallies; {} cannot",
                    o.name
                ),
            ));
        }
        Ok(o)
    }

    pub(super) fn resolve_rally(
        &self,
        state: &GameState,
        p: &RallyParams,
    ) -> Result<Vec<Event>, RuleError> {
        let o = self.check_rally(state, p)?;
        let radius = self.radius_in(o) * self.data.command.rally_fraction_of_radius;
        let mut work = Work::new(state);
        Self::mark_acted(&mut work, &[o.id]);
        let rallied = self.rally_targets(state, o).unwrap_or_default();
        work.note(format!(
            "{} spends his turn rallying {} men within {:.1} cm",
            o.name,
            rallied.len(),
            self.cm(radius)
        ));
        for id in rallied {
            // A man still waiting out the reinforcements' benefit rallies
            // at the piles he counts empty.
            let empty = state
                .figure(id)
                .map_or(0, |f| Self::empty_piles_for(state, f));
            work.push(fig_event(LcEvent::Rallied {
                figure: id,
                empty_piles: empty,
            }));
        }
        Ok(work.into_events())
    }
}
