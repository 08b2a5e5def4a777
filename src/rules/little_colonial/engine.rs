//! The Little Colonial Rules engine, its typed [`Action`]s. The turn
//! is the order deck: every action but `draw` needs a card in play, and is
//! taken by the card's officer or by figures in his command radius (of his
//! arm: cavalry cards order cavalry), each figure once per card.
//! - `draw`: the next order card (End of Turn reshuffles; reinforcements
//!   due next turn join the deck and the morale chits at that reshuffle);
//! - `play-reserved`: a card held in hand comes into play;
//! - `move`: infantry (regular 20 cm, raw 3d6 cm all of it), cavalry by
//!   level (dice, turns of 45 degrees), walls (1d10 cm) and rough ground;
//! - `fire`: individual, activated or formation (90 degree arc) area fire
//!   with the half circle, three-rank fire, saves (cavalry 4-5-6);
//! - `artillery`: roundshot along its line and its bounce, grapeshot as
//!   area fire, shrapnel over a point, deviation when missed, crew;
//! - `rally`: demoralised men within half the officer's radius;
//! - `close-combat`.
//!
//! # Conventions
//! Table inches in the state, cm in the rules (`cm_per_in`). The order
//! deck is `orders`; its cards are `<figure name>#<k>` and `end-of-turn`.
//! Figure status: `level` (raw .. elite), `command` (nco, leader,
//! platoon-officer ...), `cavalry`, `arrives` (the turn a reinforcement
//! comes on), `crew` (the gun a man serves; `gunner` for an artilleryman),
//! `rallied-at`, `acted`, `wound`. Side status `chits` (the five morale
//! piles, comma separated), `demoralised` (the levels that are), and
//! `wounded` (`compassionate` or `ruthless`: the optional wounded rule is in
//! play when both sides have written one down). Game status `card`: the
//! card in play.

use nalgebra::{Point2, Vector2};

use super::action::*;
use super::{
    CavalrySave, GunKind, LittleColonial, NAME, WoundedResult, add_piles, cavalry_save,
    cavalry_volley_odds, close_combat_p, demoralised, empty_piles, gun_hit_p, in_half_circle,
    removal_order, struck_killed_p, volley_odds, wounded_result,
};
use crate::core::dice::{Dice, total};
use crate::core::odds::{NamedOdds, named};
use crate::core::{Centimetre, Inch, Length, RefusalKind};
use crate::geometry::{
    TerrainKind, angle_off_facing_deg, bearing_deg, disc_touches_base, line_hits_base,
    path_turns_deg, point_at, point_in_polygon, segment_crosses, walk_path,
};
use crate::rules::action::{CheckDice, next_phase_event};
use crate::rules::common::{Work, centre_gap_in, figure, refusal};
use crate::rules::deck;
use crate::rules::stand_to::Wound;
use crate::rules::{Command, Deck, Event, Figure, FigureId, GameState, Pace, Rank, StatusOf};
use crate::rules::{RuleError, RuleSet};

/// The order deck's name.
pub const ORDER_DECK: &str = "orders";
/// The End of Turn card.
pub const END_OF_TURN: &str = "end-of-turn";
/// Re-rolls of a tied close combat before it is left undecided.
const MAX_TIE_ROLLS: usize = 50;
/// Step of the walk along a path when terrain costs are added up, inches.
const WALK_STEP_IN: f64 = 0.02;
/// Slack on a measured move before it is refused, cm.
const MOVE_SLACK_CM: f64 = 0.1;
/// A friend "to the flank" stands within this many table inches, centre
/// to centre (bases touching, with a little play).
const FLANK_IN: f64 = 1.5;
/// Half the width of a figure's front, degrees.
const FRONT_HALF_ARC_DEG: f64 = 45.0;
/// A friend is at the flank within this many degrees of square to the
/// facing (beside him, not diagonally behind or ahead).
const FLANK_SPREAD_DEG: f64 = 30.0;

#[derive(Debug, Clone)]
pub struct LittleColonialRules {
    pub data: LittleColonial,
}

/// The figure named on an order card.
pub fn card_owner<'a>(state: &'a GameState, card: &str) -> Option<&'a Figure> {
    let name = card.rsplit_once('#').map_or(card, |(n, _)| n);
    state.figure_named(name)
}

fn parse_piles(s: Option<&String>) -> Vec<u32> {
    s.map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_default()
}

fn piles_text(piles: &[u32]) -> String {
    piles
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// On the table and fighting: not dead or seriously wounded, not a
/// reinforcement still to come.
pub fn in_play(f: &Figure) -> bool {
    f.active() && !f.status.contains_key("arrives")
}

pub(super) fn cavalry(f: &Figure) -> bool {
    f.status.contains_key("cavalry")
}

fn arrives(f: &Figure) -> Option<u32> {
    f.status.get("arrives").and_then(|t| t.parse().ok())
}

fn set(of: FigureId, key: &str, value: Option<String>) -> Event {
    Event::Status {
        of: StatusOf::Figure(of),
        key: key.into(),
        value,
    }
}

fn centroid(figs: &[&Figure]) -> Point2<f64> {
    let n = figs.len().max(1) as f64;
    Point2::from(
        figs.iter().fold(Vector2::zeros(), |a, f| {
            a + f.placement.center_in_table.coords
        }) / n,
    )
}

impl LittleColonialRules {
    pub fn builtin() -> Result<Self, crate::spec::SpecError> {
        Ok(Self {
            data: LittleColonial::builtin()?,
        })
    }

    /// The cards a figure puts in the order deck.
    pub(super) fn cards_of(&self, f: &Figure) -> u32 {
        let level = f.status.get("level").map_or("regular", String::as_str);
        let cavalry = cavalry(f);
        match f.rank {
            Rank::Officer | Rank::Chief => self.data.officer_cards(level, cavalry).unwrap_or(1),
            Rank::Nco => self.data.deck.nco_cards,
            _ if f.leader => self.data.deck.leader_cards,
            _ => 0,
        }
    }

    fn cards_for(&self, f: &Figure) -> Vec<String> {
        (1..=self.cards_of(f))
            .map(|k| format!("{}#{k}", f.name))
            .collect()
    }

    pub(super) fn radius_in(&self, f: &Figure) -> f64 {
        let rank = f.status.get("command").map_or("leader", String::as_str);
        self.data
            .command_radius_cm(rank, f.mounted() || cavalry(f))
            .unwrap_or(0.0)
            / self.data.scale.cm_per_in
    }

    fn cm(&self, inches: f64) -> f64 {
        inches * self.data.scale.cm_per_in
    }

    /// A table length in this rule set's centimetres.
    fn in_cm(&self, table: Length<Inch>) -> Length<Centimetre> {
        table.convert(self.data.scale.cm_per_in)
    }

    pub(super) fn inches(&self, cm: f64) -> f64 {
        cm / self.data.scale.cm_per_in
    }

    fn is_demoralised(&self, state: &GameState, f: &Figure) -> bool {
        let Some(side) = state.sides.get(f.side) else {
            return false;
        };
        let empty = empty_piles(&parse_piles(side.status.get("chits")));
        let level = f.status.get("level").map_or("regular", String::as_str);
        let rallied = f.status.get("rallied-at").and_then(|r| r.parse().ok());
        demoralised(&self.data, level, empty, rallied)
    }

    /// The card in play and its owner.
    fn card_in_play<'a>(&self, state: &'a GameState) -> Result<(String, &'a Figure), RuleError> {
        let card = state.status.get("card").ok_or_else(|| {
            refuse(
                RefusalKind::Cards,
                "no order card is in play: `draw` the next card",
            )
        })?;
        let owner = card_owner(state, card)
            .ok_or_else(|| refuse(RefusalKind::Cards, format!("nobody holds `{card}`")))?;
        Ok((card.clone(), owner))
    }

    fn acted_key(state: &GameState, card: &str) -> String {
        format!("{}:{card}", state.turn)
    }

    /// May `f` act on the card in play? Returns the card's owner.
    fn commanded<'a>(
        &self,
        state: &'a GameState,
        f: &Figure,
        check_radius: bool,
    ) -> Result<&'a Figure, RuleError> {
        let (card, owner) = self.card_in_play(state)?;
        if !in_play(f) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} is not in the fight", f.name),
            )
            .by(f.id));
        }
        if !in_play(owner) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} is down: his card activates nobody", owner.name),
            ));
        }
        if f.side != owner.side {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                format!("{} is not one of {}'s men", f.name, owner.name),
            )
            .by(f.id));
        }
        if f.id != owner.id {
            if cavalry(f) != cavalry(owner) {
                return Err(refuse(
                    RefusalKind::Cards,
                    format!(
                        "{}'s card orders {} only",
                        owner.name,
                        if cavalry(owner) {
                            "cavalry"
                        } else {
                            "infantry"
                        }
                    ),
                ));
            }
            if matches!(owner.rank, Rank::Nco) && matches!(f.rank, Rank::Officer | Rank::Chief) {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    "NCOs cannot activate officers",
                ));
            }
            if check_radius && centre_gap_in(f, owner) > self.radius_in(owner) {
                return Err(refuse(
                    RefusalKind::OutOfCommand,
                    format!("{} is outside {}'s command radius", f.name, owner.name),
                )
                .by(f.id));
            }
        }
        if f.status.get("acted") == Some(&Self::acted_key(state, &card)) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has acted on this card", f.name),
            )
            .by(f.id));
        }
        if self.is_demoralised(state, f) {
            return Err(refuse(
                RefusalKind::Morale,
                format!(
                    "{} is demoralised: an officer or NCO must rally him",
                    f.name
                ),
            )
            .by(f.id));
        }
        Ok(owner)
    }

    fn mark_acted(work: &mut Work, ids: &[FigureId]) {
        if let Some(card) = work.now.status.get("card").cloned() {
            let key = Self::acted_key(&work.now, &card);
            for id in ids {
                work.push(set(*id, "acted", Some(key.clone())));
            }
        }
    }

    /// The optional wounded rule is in play when both sides wrote down how
    /// they treat their wounded.
    fn wounded_rule(state: &GameState) -> bool {
        !state.sides.is_empty() && state.sides.iter().all(|s| s.status.contains_key("wounded"))
    }

    /// A figure is killed: the wounded rule may turn it into a wound;
    /// the dead and seriously wounded cost morale chits.
    fn casualty(
        &self,
        work: &mut Work,
        id: FigureId,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let f = work.fig(id)?.clone();
        let result = if Self::wounded_rule(&work.now) {
            let face = work.roll1(dice, self.data.wounded.die, "wounded?", Some(id))?;
            wounded_result(&self.data, face)
        } else {
            WoundedResult::Killed
        };
        let (wound, tag) = match result {
            WoundedResult::Killed => (Wound::Killed, None),
            WoundedResult::Torso => (Wound::Serious, Some("torso")),
            WoundedResult::Leg => (Wound::Serious, Some("leg")),
            WoundedResult::Light => (Wound::Light, Some("light")),
        };
        work.push(Event::Wounded {
            figure: id,
            wound,
            mount: false,
        });
        if let Some(tag) = tag {
            work.push(set(id, "wound", Some(tag.into())));
            work.note(format!("{} is wounded ({tag})", f.name));
        }
        if wound != Wound::Light {
            self.casualties(work, f.side, 1);
        }
        Ok(())
    }

    /// Casualty book-keeping: chits off the first piles; a pile emptied
    /// demoralises its level.
    fn casualties(&self, work: &mut Work, side: usize, n: u32) {
        let Some(s) = work.now.sides.get(side) else {
            return;
        };
        let mut piles = parse_piles(s.status.get("chits"));
        let mut left = n;
        for p in &mut piles {
            let take = left.min(*p);
            *p -= take;
            left -= take;
        }
        self.set_piles(work, side, &piles);
    }

    fn set_piles(&self, work: &mut Work, side: usize, piles: &[u32]) {
        let empty = empty_piles(piles);
        let demoralised: Vec<String> = self.data.morale.piles.iter().take(empty).cloned().collect();
        work.push(Event::Status {
            of: StatusOf::Side(side),
            key: "chits".into(),
            value: Some(piles_text(piles)),
        });
        work.push(Event::Status {
            of: StatusOf::Side(side),
            key: "demoralised".into(),
            value: (!demoralised.is_empty()).then(|| demoralised.join(",")),
        });
    }

    fn resolve_draw(
        &self,
        state: &GameState,
        p: &DrawParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let deck = state.deck(ORDER_DECK).ok_or(RuleError::Unknown {
            what: "deck",
            name: ORDER_DECK.into(),
        })?;
        if deck.draw.is_empty() {
            return Err(refuse(RefusalKind::Cards, "the order deck is empty"));
        }
        let mut work = Work::new(state);
        work.push(Event::Odds {
            purpose: "next order card".into(),
            odds: named(&[(
                "p_end_of_turn",
                deck::p_next(state, ORDER_DECK, false, |c| c == END_OF_TURN),
            )]),
        });
        let card = deck::draw(NAME, &mut work, ORDER_DECK, dice, false)?;
        if card == END_OF_TURN {
            self.end_of_turn(&mut work, &p.reinforcements);
            return Ok(work.into_events());
        }
        if p.reserve {
            work.push(Event::CardReserved {
                deck: ORDER_DECK.into(),
                card,
            });
            return Ok(work.into_events());
        }
        work.push(Event::Status {
            of: StatusOf::Game,
            key: "card".into(),
            value: Some(card.clone()),
        });
        match p.then.as_deref() {
            None => {}
            Some("fire") => {
                let now = work.now.clone();
                let officer = card_owner(&now, &card)
                    .ok_or_else(|| refuse(RefusalKind::Cards, format!("nobody holds `{card}`")))?;
                // An officer or NCO with demoralised men near spends his
                // turn rallying them.
                let rally = RallyParams {
                    officer: officer.name.clone(),
                };
                if self
                    .rally_targets(&now, officer)
                    .is_some_and(|v| !v.is_empty())
                {
                    work.ev.extend(self.resolve_rally(&now, &rally)?);
                    return Ok(work.into_events());
                }
                self.guns_fire(&mut work, officer, dice)?;
                let now = work.now.clone();
                let firers: Vec<&Figure> = now
                    .figures
                    .iter()
                    .filter(|f| {
                        matches!(f.rank, Rank::Private | Rank::Warrior)
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
                    .find(|f| f.side != officer.side && in_play(f));
                match (firers.is_empty(), enemy) {
                    (false, Some(enemy)) => {
                        let mut attempt = work.clone();
                        match self.area_fire(&mut attempt, &firers, enemy.side, true, dice) {
                            Ok(()) => work = attempt,
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
            }
            Some(other) => {
                return Err(refuse(
                    RefusalKind::NotInTables,
                    format!("unknown activated action `{other}`"),
                ));
            }
        }
        Ok(work.into_events())
    }

    /// End of Turn: discards and held cards go back; reinforcements due
    /// next turn come on, their cards join the deck and their chits the
    /// force's; demoralised troops fall back.
    fn end_of_turn(&self, work: &mut Work, extra: &[String]) {
        let next = work.now.turn + 1;
        let arriving: Vec<Figure> = work
            .now
            .figures
            .iter()
            .filter(|f| arrives(f).is_some_and(|t| t <= next) && f.active())
            .cloned()
            .collect();
        let mut added: Vec<String> = extra.to_vec();
        for f in &arriving {
            added.extend(self.cards_for(f));
        }
        work.push(Event::DeckShuffled {
            deck: ORDER_DECK.into(),
            added,
        });
        work.push(Event::Status {
            of: StatusOf::Game,
            key: "card".into(),
            value: None,
        });
        for side in 0..work.now.sides.len() {
            let men = arriving.iter().filter(|f| f.side == side).count();
            if men == 0 {
                continue;
            }
            let theirs = self
                .data
                .morale_piles(u32::try_from(men).unwrap_or(u32::MAX));
            let now = parse_piles(work.now.sides[side].status.get("chits"));
            let piles = add_piles(&now, &theirs);
            work.note(format!(
                "{men} reinforcements arrive for {}: chits {} + {} = {}",
                work.now.sides[side].name,
                piles_text(&now),
                piles_text(&theirs),
                piles_text(&piles)
            ));
            self.set_piles(work, side, &piles);
        }
        for f in &arriving {
            work.push(set(f.id, "arrives", None));
        }
        let fleeing: Vec<String> = work
            .now
            .figures
            .iter()
            .filter(|f| in_play(f) && self.is_demoralised(&work.now, f))
            .map(|f| f.name.clone())
            .collect();
        if !fleeing.is_empty() {
            work.note(format!(
                "demoralised, they move twice their allowance toward their entry point: {}",
                fleeing.join(", ")
            ));
        }
        work.push(Event::PhaseChanged {
            turn: next,
            active_side: 0,
            phase: 0,
        });
    }

    fn resolve_play(&self, state: &GameState, p: &PlayParams) -> Result<Vec<Event>, RuleError> {
        let held = state
            .deck(ORDER_DECK)
            .is_some_and(|d| d.held.contains(&p.card));
        if !held {
            return Err(refuse(
                RefusalKind::Cards,
                format!("`{}` is not held in reserve", p.card),
            ));
        }
        Ok(vec![
            Event::CardPlayed {
                deck: ORDER_DECK.into(),
                card: p.card.clone(),
            },
            Event::Status {
                of: StatusOf::Game,
                key: "card".into(),
                value: Some(p.card.clone()),
            },
        ])
    }

    fn resolve_fire(
        &self,
        state: &GameState,
        p: &FireParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let firers: Vec<&Figure> = p
            .firers
            .iter()
            .map(|n| figure(state, n))
            .collect::<Result<_, _>>()?;
        if firers.is_empty() {
            return Err(refuse(RefusalKind::Malformed, "name the figures that fire"));
        }
        // A line is in command if any of its figures is in the radius.
        let any_in = firers
            .iter()
            .any(|f| self.commanded(state, f, true).is_ok());
        for f in &firers {
            self.commanded(state, f, !any_in || !p.formation)?;
        }
        let aim = figure(state, &p.target)?;
        let mut work = Work::new(state);
        if p.individual {
            let [f] = firers.as_slice() else {
                return Err(refuse(
                    RefusalKind::Malformed,
                    "individual fire is one soldier's",
                ));
            };
            self.individual_fire(&mut work, f, aim, dice)?;
        } else {
            self.area_fire(&mut work, &firers, aim.side, p.formation, dice)?;
        }
        Ok(work.into_events())
    }

    fn fire_dice(&self, f: &Figure) -> Result<(u32, i32), RuleError> {
        let w = self.data.weapons.get(&f.weapon).ok_or(RuleError::Unknown {
            what: "weapon",
            name: f.weapon.clone(),
        })?;
        if w.gun.is_some() {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} serves a gun: use `artillery`", f.name),
            )
            .by(f.id));
        }
        Ok((w.dice, if f.mounted() { w.mounted_add } else { 0 }))
    }

    fn range_need(&self, range_cm: f64, name: &str) -> Result<u32, RuleError> {
        self.data.to_hit(range_cm).ok_or_else(|| {
            refuse(
                RefusalKind::OutOfRange,
                format!("{name} is out of range ({range_cm:.0} cm)"),
            )
        })
    }

    /// One soldier at one figure: a hit (after the save) eliminates it.
    fn individual_fire(
        &self,
        work: &mut Work,
        f: &Figure,
        t: &Figure,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        if t.side == f.side || !in_play(t) {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                "fire at an enemy in the fight",
            ));
        }
        let (n, add) = self.fire_dice(f)?;
        let range = self.in_cm(Length::centre_to_centre(&f.placement, &t.placement));
        let need = self.range_need(range.value(), &t.name)?;
        work.push(Event::Measured(range.reading(
            format!("range {} to {}", f.name, t.name),
            &self.data.fire.band_edges_cm,
        )));
        let o = volley_odds(&self.data, n, need, add);
        work.push(Event::Odds {
            purpose: format!("{} fires at {}", f.name, t.name),
            odds: named(&[
                ("p_die_hits", o.p_die_hits),
                ("p_killed", 1.0 - o.hits.first().copied().unwrap_or(1.0)),
            ]),
        });
        Self::mark_acted(work, &[f.id]);
        let rolls = work.roll(dice, n as usize, self.data.fire.die, "fire", Some(f.id))?;
        let hits = rolls
            .iter()
            .filter(|r| i64::from(r.face) + i64::from(add) >= i64::from(need))
            .count();
        let struck = vec![t.id; hits];
        self.struck(work, &struck, dice)
    }

    /// Figures struck one by one (a roundshot's line, shrapnel, hits on a
    /// single figure): each saves as against fire (mounted: 4-5 kills the
    /// horse, 6 saves both). A figure already down is not struck again.
    fn struck(
        &self,
        work: &mut Work,
        ids: &[FigureId],
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        for &id in ids {
            let f = work.fig(id)?.clone();
            if !in_play(&f) {
                continue;
            }
            let face = work.roll1(dice, self.data.fire.die, "save", Some(id))?;
            if f.mounted() {
                match cavalry_save(&self.data, face) {
                    CavalrySave::BothSaved => {
                        work.note(format!("{} and his horse are unhurt", f.name))
                    }
                    CavalrySave::HorseKilled => {
                        work.note(format!("{}'s horse is killed", f.name));
                        work.push(Event::Wounded {
                            figure: id,
                            wound: Wound::Killed,
                            mount: true,
                        });
                    }
                    CavalrySave::BothKilled => self.casualty(work, id, dice)?,
                }
            } else if face >= self.data.fire.save_face {
                work.note(format!("{} is saved", f.name));
            } else {
                self.casualty(work, id, dice)?;
            }
        }
        Ok(())
    }

    /// Area fire by `firers` at the nearest figure of `target_side` (in the
    /// 90 degree arc when in formation); a third rank's dice are rolled
    /// apart and each 1 among them kills a man of the two ranks in front.
    fn area_fire(
        &self,
        work: &mut Work,
        firers: &[&Figure],
        target_side: usize,
        formation: bool,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let state = work.now.clone();
        let firers: Vec<&Figure> = firers.iter().copied().filter(|f| in_play(f)).collect();
        let mut front: Vec<&Figure> = Vec::new();
        let mut third: Vec<&Figure> = Vec::new();
        for f in firers.iter().copied() {
            match self.rank_in_unit(&state, f) {
                Some(r) if r >= 3 => {
                    return Err(refuse(
                        RefusalKind::CannotDo,
                        format!("{} is in the fourth rank: at most three ranks fire", f.name),
                    )
                    .by(f.id));
                }
                Some(2) if formation => third.push(f),
                _ => front.push(f),
            }
        }
        let (mut dice_n, mut third_n, mut add) = (0, 0, 0);
        for f in &front {
            let (n, a) = self.fire_dice(f)?;
            dice_n += n;
            add = add.min(a);
        }
        for f in &third {
            let (n, a) = self.fire_dice(f)?;
            third_n += n;
            add = add.min(a);
        }
        let at = centroid(&firers);
        let eligible = |t: &Figure| {
            !formation
                || firers.iter().any(|f| {
                    angle_off_facing_deg(
                        f.placement.center_in_table,
                        f.placement.facing_deg,
                        t.placement.center_in_table,
                    ) <= self.data.fire.arc_deg / 2.0
                })
        };
        let target = state
            .figures
            .iter()
            .filter(|t| t.side == target_side && in_play(t) && eligible(t))
            .min_by(|a, b| {
                let da = (a.placement.center_in_table - at).norm();
                let db = (b.placement.center_in_table - at).norm();
                da.total_cmp(&db)
            })
            .ok_or_else(|| refuse(RefusalKind::OutOfSight, "no target in the arc of fire"))?;
        let range = self.in_cm(Length::path(
            (target.placement.center_in_table - at).norm(),
            &target.placement,
        ));
        let need = self.range_need(range.value(), &target.name)?;
        work.push(Event::Measured(range.reading(
            format!("range to {}", target.name),
            &self.data.fire.band_edges_cm,
        )));
        let ids: Vec<FigureId> = firers.iter().map(|f| f.id).collect();
        Self::mark_acted(work, &ids);
        let n_firers = u32::try_from(firers.len()).unwrap_or(u32::MAX);
        let mut third_ones = 0;
        let mut faces = work.roll(dice, dice_n as usize, self.data.fire.die, "fire", None)?;
        if third_n > 0 {
            let t = work.roll(
                dice,
                third_n as usize,
                self.data.fire.die,
                "fire, third rank",
                None,
            )?;
            third_ones = t
                .iter()
                .filter(|r| r.face == self.data.fire.third_rank_kills_on)
                .count();
            faces.extend(t.iter().copied());
        }
        self.apply_area_hits(
            work,
            &faces.iter().map(|r| r.face).collect::<Vec<_>>(),
            need,
            add,
            target,
            at,
            n_firers,
            dice,
        )?;
        // Each 1 of the third rank: a random man of the first two ranks.
        for _ in 0..third_ones {
            let front_now: Vec<FigureId> = front
                .iter()
                .filter(|f| work.now.figure(f.id).is_some_and(in_play))
                .map(|f| f.id)
                .collect();
            if front_now.is_empty() {
                break;
            }
            let k = work.roll1(
                dice,
                u32::try_from(front_now.len()).unwrap_or(u32::MAX),
                "third rank's 1: which man in front",
                None,
            )?;
            let victim = front_now[k as usize - 1];
            work.note(format!(
                "a 1 in the third rank hits {}",
                work.fig(victim)?.name
            ));
            self.casualty(work, victim, dice)?;
        }
        Ok(())
    }

    /// Hits of an area fire (`faces` of the fire dice): saves, then the
    /// half circle of `radius_cm` around the target and the removal order.
    #[allow(clippy::too_many_arguments)] // one step of a volley: each value is needed
    fn apply_area_hits(
        &self,
        work: &mut Work,
        faces: &[u32],
        need: u32,
        add: i32,
        target: &Figure,
        from: Point2<f64>,
        radius_cm: u32,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let n = u32::try_from(faces.len()).unwrap_or(u32::MAX);
        let cav = target.mounted();
        let mut odds = if cav {
            let o = cavalry_volley_odds(&self.data, n, need, add);
            vec![
                ("p_die_kills", o.p_die_kills),
                ("p_die_kills_horse", o.p_die_kills_horse),
                ("p_no_kill", o.riders_killed.first().copied().unwrap_or(1.0)),
            ]
        } else {
            let o = volley_odds(&self.data, n, need, add);
            vec![
                ("p_die_hits", o.p_die_hits),
                ("p_no_hit", o.hits.first().copied().unwrap_or(1.0)),
            ]
        };
        odds.push(("dice", f64::from(n)));
        work.push(Event::Odds {
            purpose: format!("{n} dice needing {need}"),
            odds: named(&odds),
        });
        let hit_count = faces
            .iter()
            .filter(|f| i64::from(**f) + i64::from(add) >= i64::from(need))
            .count();
        let saves = work.roll(dice, hit_count, self.data.fire.die, "saves", None)?;
        let (mut kills, mut horses) = (0_u32, 0_u32);
        for s in &saves {
            if cav {
                match cavalry_save(&self.data, s.face) {
                    CavalrySave::BothSaved => {}
                    CavalrySave::HorseKilled => horses += 1,
                    CavalrySave::BothKilled => kills += 1,
                }
            } else if s.face < self.data.fire.save_face {
                kills += 1;
            }
        }
        let radius_in = self.inches(f64::from(radius_cm));
        let mut area: Vec<&Figure> = work
            .now
            .figures
            .iter()
            .filter(|t| {
                t.side == target.side
                    && in_play(t)
                    && in_half_circle(
                        target.placement.center_in_table,
                        from,
                        radius_in,
                        t.placement.center_in_table,
                    )
            })
            .collect();
        area.sort_by(|a, b| {
            let da = (a.placement.center_in_table - target.placement.center_in_table).norm();
            let db = (b.placement.center_in_table - target.placement.center_in_table).norm();
            da.total_cmp(&db)
        });
        let ranks: Vec<Rank> = area.iter().map(|f| f.rank).collect();
        let order = removal_order(&self.data, &ranks, kills + horses);
        let down: Vec<FigureId> = order
            .iter()
            .take(kills as usize)
            .map(|i| area[*i].id)
            .collect();
        let unhorsed: Vec<FigureId> = order
            .iter()
            .skip(kills as usize)
            .map(|i| area[*i].id)
            .filter(|id| work.now.figure(*id).is_some_and(Figure::mounted))
            .collect();
        work.note(format!(
            "{kills} hits after saves{} in a {radius_cm} cm half circle around {}: {} down",
            if cav {
                format!(" and {horses} horses")
            } else {
                String::new()
            },
            target.name,
            down.len()
        ));
        for id in unhorsed {
            work.push(Event::Wounded {
                figure: id,
                wound: Wound::Killed,
                mount: true,
            });
        }
        for id in down {
            self.casualty(work, id, dice)?;
        }
        Ok(())
    }

    /// The rank (0 = front) of a figure in its unit's formation.
    fn rank_in_unit(&self, state: &GameState, f: &Figure) -> Option<usize> {
        state.units.iter().find_map(|u| {
            u.figures
                .iter()
                .position(|id| *id == f.id)
                .map(|k| u.rank_of(k))
        })
    }

    /// Movement cost along a path, cm of allowance per table inch walked:
    /// clear x1, rough ground by the data's factor (jungle).
    fn step_cost_cm(&self, state: &GameState, p: Point2<f64>) -> f64 {
        let rough = state
            .terrain
            .iter()
            .any(|a| a.is(TerrainKind::Rough) && point_in_polygon(&a.polygon_in, p));
        let factor = if rough {
            self.data
                .movement
                .terrain_factor
                .get("jungle")
                .copied()
                .unwrap_or(1.0)
        } else {
            1.0
        };
        self.cm(WALK_STEP_IN) * factor
    }

    fn resolve_move(
        &self,
        state: &GameState,
        p: &MoveParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let f = figure(state, &p.figure)?;
        self.commanded(state, f, true)?;
        let start = f.placement.center_in_table;
        let mut path = vec![start];
        path.extend(p.path_in.iter().map(|q| Point2::new(q[0], q[1])));
        let turns = path_turns_deg(&path);
        let level = f.status.get("level").map_or("regular", String::as_str);
        let officer = matches!(f.rank, Rank::Officer | Rank::Chief | Rank::Nco);
        let mut work = Work::new(state);
        // (allowance cm, must use it all)
        let (allowance, all, max_turns) = if cavalry(f) && f.mounted() {
            let m = self
                .data
                .cavalry
                .movement
                .get(level)
                .ok_or_else(|| {
                    refuse(
                        RefusalKind::NotInTables,
                        format!("no cavalry move for `{level}`"),
                    )
                })?
                .clone();
            let r = work.roll(dice, m.dice as usize, 6, "cavalry move", Some(f.id))?;
            (m.base_cm + f64::from(total(&r)), m.must_move_all, m.turns)
        } else if level == "raw" && !officer {
            let r = work.roll(
                dice,
                self.data.movement.raw_dice as usize,
                6,
                "raw move",
                Some(f.id),
            )?;
            (self.data.raw_move_cm(total(&r)), true, 0)
        } else {
            (self.data.movement.regular_cm, false, 0)
        };
        if turns.len() > max_turns as usize
            || turns
                .iter()
                .any(|t| *t > self.data.cavalry.turn_max_deg + 1e-9)
        {
            return Err(refuse(
                RefusalKind::TooFar,
                format!(
                    "{} may make {max_turns} turns of {} degrees or less; the path has {}",
                    f.name,
                    self.data.cavalry.turn_max_deg,
                    turns.len()
                ),
            )
            .by(f.id));
        }
        // Walk along the path (on past its end when the whole roll must be
        // used), paying for rough ground and walls.
        let total_in = crate::geometry::path_length_in(&path);
        let reach_in = if all {
            self.inches(allowance) + WALK_STEP_IN
        } else {
            total_in
        };
        let walls: Vec<&crate::geometry::TerrainArea> = state
            .terrain
            .iter()
            .filter(|a| a.is(TerrainKind::Obstacle))
            .collect();
        let mut budget = allowance;
        let mut walked = 0.0;
        let mut here = start;
        let mut heading = f.placement.facing_deg;
        let mut crossed: Vec<usize> = walls
            .iter()
            .enumerate()
            .filter(|(_, a)| point_in_polygon(&a.polygon_in, start))
            .map(|(i, _)| i)
            .collect();
        while walked + WALK_STEP_IN <= reach_in + 1e-9 {
            let Some((next, h)) = walk_path(&path, walked + WALK_STEP_IN, all) else {
                break;
            };
            if !state.on_table(next) {
                break;
            }
            let mut cost = self.step_cost_cm(state, next);
            for (i, wall) in walls.iter().enumerate() {
                if !crossed.contains(&i) && segment_crosses(here, next, &wall.polygon_in) {
                    crossed.push(i);
                    let d = work.roll1(dice, self.data.movement.wall_die, "wall", Some(f.id))?;
                    cost += f64::from(d);
                    work.note(format!("crossing {} costs {d} cm", wall.name));
                }
            }
            if cost > budget + 1e-9 {
                break;
            }
            budget -= cost;
            walked += WALK_STEP_IN;
            here = next;
            heading = h;
        }
        if !all && total_in - walked < WALK_STEP_IN {
            // The last part-step of a path that fits: end on its point.
            walked = total_in;
            here = *path.last().unwrap_or(&here);
        }
        if !all && total_in - walked > self.inches(MOVE_SLACK_CM) + WALK_STEP_IN {
            work.note(format!(
                "{} runs out of movement {:.1} cm short of the end of the path",
                f.name,
                self.cm(total_in - walked)
            ));
        }
        work.push(Event::Measured(
            self.in_cm(Length::path(walked, &f.placement))
                .reading(format!("{}'s move", f.name), &[allowance]),
        ));
        Self::mark_acted(&mut work, &[f.id]);
        work.push(Event::Moved {
            figure: f.id,
            to_in: here,
            facing_deg: crate::geometry::normalize_deg(heading),
            pace: Pace::Walk,
            distance_in: walked,
            through_rough: false,
        });
        Ok(work.into_events())
    }

    /// The demoralised men an officer or NCO could rally (None: he may not
    /// rally).
    fn rally_targets(&self, state: &GameState, o: &Figure) -> Option<Vec<FigureId>> {
        if !matches!(o.rank, Rank::Officer | Rank::Nco | Rank::Chief)
            || !in_play(o)
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
                        && in_play(f)
                        && self.is_demoralised(state, f)
                        && centre_gap_in(f, o) <= radius
                })
                .map(|f| f.id)
                .collect(),
        )
    }

    /// The guns the card's officer commands fire at the nearest enemy:
    /// grapeshot in its range, else roundshot (Napoleons) or shrapnel.
    fn guns_fire(
        &self,
        work: &mut Work,
        officer: &Figure,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let now = work.now.clone();
        let guns: Vec<&Figure> = now
            .figures
            .iter()
            .filter(|g| {
                self.data
                    .weapons
                    .get(&g.weapon)
                    .is_some_and(|w| w.gun.is_some())
                    && g.side == officer.side
                    && self.commanded(&now, g, true).is_ok()
            })
            .collect();
        for g in guns {
            let Some(kind) = self.data.weapons.get(&g.weapon).and_then(|w| w.gun) else {
                continue;
            };
            let Some(enemy) = work
                .now
                .figures
                .iter()
                .filter(|e| e.side != g.side && in_play(e))
                .min_by(|a, b| centre_gap_in(a, g).total_cmp(&centre_gap_in(b, g)))
            else {
                break;
            };
            let grape = self.cm(centre_gap_in(enemy, g)) <= self.data.artillery.grapeshot_range_cm;
            let ammo = match (grape, kind) {
                (true, _) => "grapeshot",
                (false, GunKind::Napoleon) => "roundshot",
                (false, GunKind::Rifled) => "shrapnel",
            };
            let p = ArtilleryParams {
                gun: g.name.clone(),
                ammo: ammo.into(),
                at_in: None,
                target: Some(enemy.name.clone()),
            };
            match self.resolve_artillery(&work.now, &p, dice) {
                Ok(ev) => {
                    for e in ev {
                        work.push(e);
                    }
                }
                Err(RuleError::Refused(why)) => {
                    work.note(format!("{} does not fire: {why}", g.name))
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn resolve_rally(&self, state: &GameState, p: &RallyParams) -> Result<Vec<Event>, RuleError> {
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
        let radius = self.radius_in(o) * self.data.command.rally_fraction_of_radius;
        let empty = state
            .sides
            .get(o.side)
            .map_or(0, |s| empty_piles(&parse_piles(s.status.get("chits"))));
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
            work.push(set(id, "rallied-at", Some(empty.to_string())));
        }
        Ok(work.into_events())
    }

    /// The crew modifier of a gun: its artillerymen and the men helping.
    fn gun_crew(&self, state: &GameState, g: &Figure) -> (u32, u32) {
        let serving = state
            .figures
            .iter()
            .filter(|f| in_play(f) && f.status.get("crew") == Some(&g.name));
        let (mut gunners, mut helpers) = (0, 0);
        for f in serving {
            if f.status.contains_key("gunner") {
                gunners += 1;
            } else {
                helpers += 1;
            }
        }
        if g.status.contains_key("gunner") {
            gunners += 1;
        }
        (gunners, helpers)
    }

    fn resolve_artillery(
        &self,
        state: &GameState,
        p: &ArtilleryParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let g = figure(state, &p.gun)?;
        self.commanded(state, g, true)?;
        let kind = self
            .data
            .weapons
            .get(&g.weapon)
            .and_then(|w| w.gun)
            .ok_or_else(|| {
                refuse(RefusalKind::CannotDo, format!("{} has no gun", g.name)).by(g.id)
            })?;
        if !kind.fires(&p.ammo) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "a {} gun does not fire {}",
                    match kind {
                        GunKind::Napoleon => "Napoleon",
                        GunKind::Rifled => "rifled",
                    },
                    p.ammo
                ),
            ));
        }
        let (gunners, helpers) = self.gun_crew(state, g);
        let crew_mod = self.data.crew_modifier(gunners, helpers);
        let from = g.placement.center_in_table;
        let mut work = Work::new(state);
        Self::mark_acted(&mut work, &[g.id]);
        work.note(format!(
            "{} has {gunners} gunners and {helpers} helpers: {crew_mod:+} to hit",
            g.name
        ));
        if p.ammo == "grapeshot" {
            let t = figure(state, p.target.as_deref().unwrap_or_default())?;
            let target = state
                .figures
                .iter()
                .filter(|e| e.side == t.side && in_play(e))
                .min_by(|a, b| centre_gap_in(a, g).total_cmp(&centre_gap_in(b, g)))
                .ok_or_else(|| refuse(RefusalKind::Malformed, "no target"))?;
            let range_cm = self.cm(centre_gap_in(g, target));
            if range_cm > self.data.artillery.grapeshot_range_cm {
                return Err(refuse(
                    RefusalKind::OutOfRange,
                    format!(
                        "grapeshot reaches {} cm; {} is {range_cm:.0} cm away",
                        self.data.artillery.grapeshot_range_cm, target.name
                    ),
                ));
            }
            let need = self.range_need(range_cm, &target.name)?;
            let rating = self.data.artillery.grapeshot_rating;
            let faces = work.roll(
                dice,
                rating as usize,
                self.data.fire.die,
                "grapeshot",
                Some(g.id),
            )?;
            let faces: Vec<u32> = faces.iter().map(|r| r.face).collect();
            self.apply_area_hits(
                &mut work, &faces, need, crew_mod, target, from, rating, dice,
            )?;
            return Ok(work.into_events());
        }
        let aim = match (&p.at_in, &p.target) {
            (Some(q), None) => Point2::new(q[0], q[1]),
            (None, Some(t)) => figure(state, t)?.placement.center_in_table,
            _ => {
                return Err(refuse(
                    RefusalKind::Malformed,
                    "name an `at_in` point or a `target` figure",
                ));
            }
        };
        let range_cm = self.cm((aim - from).norm());
        if range_cm > self.data.artillery.range_cm {
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!(
                    "the point is {range_cm:.0} cm away, beyond {} cm",
                    self.data.artillery.range_cm
                ),
            ));
        }
        let p_hit = gun_hit_p(&self.data, crew_mod);
        work.push(Event::Odds {
            purpose: format!(
                "{} fires {} at ({:.1}, {:.1})",
                g.name, p.ammo, aim.x, aim.y
            ),
            odds: named(&[
                ("p_on_point", p_hit),
                (
                    "p_figure_in_line_killed",
                    struck_killed_p(&self.data, 1.0, false),
                ),
                (
                    "p_figure_under_shrapnel_killed",
                    struck_killed_p(
                        &self.data,
                        f64::from(self.data.fire.die + 1 - self.data.artillery.shrapnel_hit_on)
                            / f64::from(self.data.fire.die),
                        false,
                    ),
                ),
            ]),
        });
        let face = work.roll1(dice, self.data.fire.die, "gun to hit", Some(g.id))?;
        let impact =
            if i64::from(face) + i64::from(crew_mod) >= i64::from(self.data.artillery.to_hit) {
                aim
            } else {
                self.deviate(&mut work, from, aim, dice, g.id)?
            };
        if p.ammo == "roundshot" {
            let a = &self.data.artillery;
            let b = work.roll1(dice, a.bounce_die, "bounce", Some(g.id))?;
            let bounce_in = self.inches(f64::from(b) * a.bounce_cm_per_pip);
            let end = point_at(impact, bearing_deg(from, impact), bounce_in);
            work.note(format!(
                "the ball lands at ({:.1}, {:.1}) and bounces {:.0} cm on",
                impact.x,
                impact.y,
                f64::from(b) * a.bounce_cm_per_pip
            ));
            let crew: Vec<FigureId> = state
                .figures
                .iter()
                .filter(|f| f.id == g.id || f.status.get("crew") == Some(&g.name))
                .map(|f| f.id)
                .collect();
            let mut inline: Vec<&Figure> = state
                .figures
                .iter()
                .filter(|f| {
                    in_play(f)
                        && !crew.contains(&f.id)
                        && (line_hits_base(from, impact, &f.placement)
                            || line_hits_base(impact, end, &f.placement))
                })
                .collect();
            inline.sort_by(|x, y| centre_gap_in(x, g).total_cmp(&centre_gap_in(y, g)));
            let ids: Vec<FigureId> = inline.iter().map(|f| f.id).collect();
            work.note(format!("{} figures in the line", ids.len()));
            self.struck(&mut work, &ids, dice)?;
        } else {
            let a = &self.data.artillery;
            let radius_in = self.inches(a.shrapnel_radius_cm);
            let under: Vec<FigureId> = state
                .figures
                .iter()
                .filter(|f| in_play(f) && disc_touches_base(impact, radius_in, &f.placement))
                .map(|f| f.id)
                .collect();
            let mut hit = Vec::new();
            for id in under {
                let d = work.roll1(dice, self.data.fire.die, "shrapnel", Some(id))?;
                if d >= a.shrapnel_hit_on {
                    hit.push(id);
                }
            }
            work.note(format!("shrapnel bursts: {} figures hit", hit.len()));
            self.struck(&mut work, &hit, dice)?;
        }
        Ok(work.into_events())
    }

    /// A missed gun: the deviation die's distance and direction (1 = over,
    /// on along the line of fire; then clockwise).
    fn deviate(
        &self,
        work: &mut Work,
        from: Point2<f64>,
        aim: Point2<f64>,
        dice: &mut dyn Dice,
        gun: FigureId,
    ) -> Result<Point2<f64>, RuleError> {
        let a = &self.data.artillery;
        let d = work.roll1(dice, a.deviation_die, "deviation distance", Some(gun))?;
        let dir = work.roll1(
            dice,
            a.deviation_direction_faces,
            "deviation direction",
            Some(gun),
        )?;
        let step = 360.0 / f64::from(a.deviation_direction_faces.max(1));
        let bearing = bearing_deg(from, aim) - f64::from(dir - 1) * step;
        let cm = f64::from(d) * a.deviation_cm_per_pip;
        let landed = point_at(aim, bearing, self.inches(cm));
        work.note(format!(
            "off target: {cm} cm toward direction {dir}, at ({:.1}, {:.1})",
            landed.x, landed.y
        ));
        Ok(landed)
    }

    /// Is the figure within close-combat contact of an enemy?
    fn in_contact(&self, state: &GameState, f: &Figure) -> bool {
        state.figures.iter().any(|e| {
            e.side != f.side
                && in_play(e)
                && self.cm(centre_gap_in(e, f))
                    <= self.data.close_combat.contact_cm + self.data.scale.cm_per_in
        })
    }

    /// The formation modifiers of a fighter against `enemy`: the add, does
    /// he win ties (a single rank in formation), and the reasons. In a
    /// formed unit (not `loose`): +1 with a second rank man directly
    /// behind, +1 more against cavalry in front with a third; anyone: +1 for
    /// each friend at his flank who is not in close combat himself.
    fn formation_add(
        &self,
        state: &GameState,
        f: &Figure,
        enemy: &Figure,
    ) -> (i32, bool, Vec<String>) {
        let cc = &self.data.close_combat;
        let (mut add, mut single, mut why) = (0, false, Vec::new());
        let unit = state
            .units
            .iter()
            .find(|u| u.formation != "loose" && u.figures.contains(&f.id));
        if let Some(u) = unit {
            let alive = |i: usize| {
                u.figures
                    .get(i)
                    .and_then(|id| state.figure(*id))
                    .is_some_and(in_play)
            };
            let fr = u.frontage as usize;
            let k = u.figures.iter().position(|id| *id == f.id).unwrap_or(0);
            if fr == 0 || !(fr..u.figures.len()).any(alive) {
                single = true;
                why.push("a single rank: wins ties".to_owned());
            } else if k < fr {
                if alive(k + fr) {
                    add += cc.second_rank_add;
                    why.push(format!("second rank {:+}", cc.second_rank_add));
                }
                let in_front = angle_off_facing_deg(
                    f.placement.center_in_table,
                    f.placement.facing_deg,
                    enemy.placement.center_in_table,
                ) <= FRONT_HALF_ARC_DEG;
                if enemy.mounted() && in_front && alive(k + 2 * fr) {
                    add += cc.third_rank_vs_cavalry_add;
                    why.push(format!(
                        "third rank against cavalry {:+}",
                        cc.third_rank_vs_cavalry_add
                    ));
                }
            }
        }
        for g in state.figures.iter().filter(|g| {
            g.side == f.side && g.id != f.id && in_play(g) && centre_gap_in(g, f) <= FLANK_IN
        }) {
            let off = angle_off_facing_deg(
                f.placement.center_in_table,
                f.placement.facing_deg,
                g.placement.center_in_table,
            );
            let at_flank = (off - 90.0).abs() <= FLANK_SPREAD_DEG;
            if at_flank && !self.in_contact(state, g) {
                add += cc.flank_add;
                why.push(format!("{} at his flank {:+}", g.name, cc.flank_add));
            }
        }
        (add, single, why)
    }

    fn resolve_combat(
        &self,
        state: &GameState,
        p: &CombatParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let a = figure(state, &p.a)?;
        let b = figure(state, &p.b)?;
        self.card_in_play(state)?;
        if a.side == b.side || !in_play(a) || !in_play(b) {
            return Err(refuse(
                RefusalKind::CannotDo,
                "close combat is between enemies in the fight",
            ));
        }
        let gap_in = centre_gap_in(a, b);
        if self.cm(gap_in) > self.data.close_combat.contact_cm + self.data.scale.cm_per_in {
            return Err(refuse(
                RefusalKind::NotInContact,
                format!("{} and {} are not in contact", a.name, b.name),
            )
            .by(a.id));
        }
        let wins_ties = self.data.close_combat.single_rank_wins_ties;
        let (fa, a_rank, a_why) = self.formation_add(state, a, b);
        let (fb, b_rank, b_why) = self.formation_add(state, b, a);
        let (a_add, b_add) = (p.a_add + fa, p.b_add + fb);
        let a_ties = wins_ties && (p.a_single_rank || a_rank);
        let b_ties = wins_ties && (p.b_single_rank || b_rank);
        let mut work = Work::new(state);
        for (f, why) in [(a, a_why), (b, b_why)] {
            if !why.is_empty() {
                work.note(format!("{}: {}", f.name, why.join(", ")));
            }
        }
        work.push(Event::Odds {
            purpose: format!(
                "close combat {} ({a_add:+}) against {} ({b_add:+})",
                a.name, b.name
            ),
            odds: named(&[(
                "p_a_wins",
                close_combat_p(&self.data, a_add, a_ties, b_add, b_ties),
            )]),
        });
        for _ in 0..MAX_TIE_ROLLS {
            let r = work.roll(
                dice,
                2,
                self.data.close_combat.die,
                format!("close combat {} against {}", a.name, b.name),
                Some(a.id),
            )?;
            let (ta, tb) = (r[0].face as i32 + a_add, r[1].face as i32 + b_add);
            let a_wins = ta > tb || (ta == tb && a_ties && !b_ties);
            let b_wins = tb > ta || (ta == tb && b_ties && !a_ties);
            if a_wins || b_wins {
                let loser = if a_wins { b } else { a };
                self.casualty(&mut work, loser.id, dice)?;
                return Ok(work.into_events());
            }
        }
        work.note("the combat stays tied");
        Ok(work.into_events())
    }

    fn resolve_inner(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        match command {
            // The order deck runs the turn (End of Turn); ending a "phase"
            // by hand only hands the table to the other side.
            Command::EndPhase => Ok(vec![next_phase_event(state, 1)]),
            Command::LittleColonial(action) => match action {
                Action::Draw(p) => self.resolve_draw(state, p, dice),
                Action::PlayReserved(p) => self.resolve_play(state, p),
                Action::Fire(p) => self.resolve_fire(state, p, dice),
                Action::Move(p) => self.resolve_move(state, p, dice),
                Action::Artillery(p) => self.resolve_artillery(state, p, dice),
                Action::Rally(p) => self.resolve_rally(state, p),
                Action::CloseCombat(p) => self.resolve_combat(state, p, dice),
            },
            other => Err(RuleError::Unsupported {
                rule_set: NAME.into(),
                action: crate::rules::action::action_name(other),
            }),
        }
    }
}

impl RuleSet for LittleColonialRules {
    fn name(&self) -> &str {
        NAME
    }

    fn actions(&self) -> Vec<crate::rules::describe::ActionSpec> {
        super::menu::actions()
    }

    fn phases(&self) -> Vec<String> {
        vec!["orders".into()]
    }

    fn knows_weapon(&self, name: &str) -> bool {
        self.data.weapons.contains_key(name)
    }

    fn knows_melee_weapon(&self, _name: &str) -> bool {
        // Close combat modifiers come from formation, not weapons.
        true
    }

    fn experience_range(&self) -> (u8, u8) {
        (1, 5)
    }

    /// The order deck from the officers, NCOs and leaders on the table, and
    /// each side's morale chits from its men's count (reinforcements come
    /// later with their own).
    fn prepare(&self, state: &mut GameState) -> Result<(), RuleError> {
        if state.deck(ORDER_DECK).is_none() {
            let mut draw = Vec::new();
            for f in state.figures.iter().filter(|f| arrives(f).is_none()) {
                draw.extend(self.cards_for(f));
            }
            for _ in 0..self.data.deck.end_of_turn_cards {
                draw.push(END_OF_TURN.to_owned());
            }
            state.decks.push(Deck {
                name: ORDER_DECK.into(),
                draw,
                discard: Vec::new(),
                held: Vec::new(),
            });
        }
        for side in 0..state.sides.len() {
            let men = state
                .figures
                .iter()
                .filter(|f| f.side == side && arrives(f).is_none())
                .count();
            let piles = self
                .data
                .morale_piles(u32::try_from(men).unwrap_or(u32::MAX));
            state.sides[side]
                .status
                .entry("chits".into())
                .or_insert_with(|| piles_text(&piles));
        }
        Ok(())
    }

    fn check(&self, state: &GameState, command: &Command) -> Result<(), RuleError> {
        self.resolve_inner(state, command, &mut CheckDice)
            .map(|_| ())
    }

    fn odds(&self, state: &GameState, command: &Command) -> Result<Vec<NamedOdds>, RuleError> {
        Ok(crate::rules::odds_from_events(self.resolve_inner(
            state,
            command,
            &mut CheckDice,
        )?))
    }

    fn parse_action(&self, name: &str, params: &serde_json::Value) -> Result<Command, RuleError> {
        crate::rules::action::parse_action_or_shared(
            NAME,
            Action::NAMES,
            || Action::parse(name, params).map(Command::LittleColonial),
            name,
            params,
        )
    }

    fn overlays(
        &self,
        state: &GameState,
        figure: FigureId,
    ) -> Vec<crate::rules::overlay::OverlayShape> {
        self.overlay_shapes(state, figure)
    }

    fn resolve(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.resolve_inner(state, command, dice)
    }
}

/// This rule set refuses the command now, for a rule of `kind`.
fn refuse(kind: RefusalKind, why: impl Into<String>) -> RuleError {
    refusal(NAME, kind, why)
}
