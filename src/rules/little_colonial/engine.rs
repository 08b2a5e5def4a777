//! The Little Colonial Rules engine, its typed [`Action`]s. The turn
//! is the order deck: every action but `draw` needs a card in play, and is
//! taken by the card's officer or by figures he may activate (see
//! [`LittleColonialRules::commanded`]), each figure once per card.
//! - `draw`: the next order card (End of Turn reshuffles; reinforcements
//!   due next turn join the deck and the morale chits at that reshuffle;
//!   demoralised troops fall back twice their allowance, or surrender);
//! - `play-reserved`: a card held in hand comes into play;
//! - `move`: infantry (regular 20 cm, raw 3d6 cm all of it), cavalry by
//!   level (dice, turns of 45 degrees), walls (1d10 cm), terrain by its
//!   factor, stopping within 2.5 cm of an enemy; `reform` (5 cm) and
//!   `drag` (a seriously wounded man);
//! - `fire`: individual, activated or formation (90 degree arc) area fire
//!   with the half circle and the firer's choice of whom to remove,
//!   three-rank fire, saves (cavalry 4-5-6);
//! - `artillery`: roundshot along its line and its bounce, grapeshot as
//!   automatic area fire, shrapnel over a point, deviation when missed,
//!   crew;
//! - `rally`: demoralised men within half the officer's radius;
//! - `close-combat`.
//!
//! Each action has a `check_*` that decides without dice (the plan or a
//! typed refusal) and a `resolve_*` that checks, then rolls.
//!
//! # Conventions
//! Table inches in the state, cm in the rules (`cm_per_in`); every
//! distance a rule decides on is a [`Length<Centimetre>`] recorded as a
//! `Measured` reading. The order deck is `orders`; its cards are
//! `<figure name>#<k>` and `end-of-turn`. The rule set's state is typed
//! ([`super::status`]): a figure's level, command, the unit he leads,
//! cavalry, arrival turn, gun crew, rally, the card he acted on, wound,
//! entry point; a side's five morale piles and its wounded policy; the
//! card in play.

use nalgebra::{Point2, Vector2};

use super::action::*;
use super::event::Event as LcEvent;
use super::status::{CommandRank, FigureStatus, Level, SideStatus, WoundKind, WoundedPolicy};
use super::{LittleColonial, NAME, WoundedResult, add_piles, demoralised, wounded_result};
use crate::core::dice::Dice;
use crate::core::odds::NamedOdds;
use crate::core::{Centimetre, Inch, Length, RefusalKind};
use crate::rules::action::{CheckDice, next_phase_event};
use crate::rules::common::{Work, centre_gap_in, refusal};
use crate::rules::stand_to::Wound;
use crate::rules::{
    Command, Deck, Event, Figure, FigureId, FigureRules, GameRules, GameState, Rank, SideRules,
    Status, UnitRules,
};
use crate::rules::{RuleError, RuleSet};

/// The order deck's name.
pub const ORDER_DECK: &str = "orders";
/// The End of Turn card.
pub const END_OF_TURN: &str = "end-of-turn";

/// The typed state of a figure that has none yet.
static DEFAULT_FIGURE: FigureStatus = FigureStatus::DEFAULT;
/// The typed state of a side that has none yet.
static DEFAULT_SIDE: SideStatus = SideStatus::DEFAULT;

#[derive(Debug, Clone)]
pub struct LittleColonialRules {
    pub data: LittleColonial,
}

/// A figure's Little Colonial state (the default when it has none).
pub fn st(f: &Figure) -> &FigureStatus {
    f.rules.little_colonial().unwrap_or(&DEFAULT_FIGURE)
}

/// A side's Little Colonial state (the default when it has none).
pub fn side_st(state: &GameState, side: usize) -> &SideStatus {
    state
        .sides
        .get(side)
        .and_then(|s| s.rules.little_colonial())
        .unwrap_or(&DEFAULT_SIDE)
}

/// The order card in play, if any.
pub fn card_in_play(state: &GameState) -> Option<&str> {
    state
        .rules
        .little_colonial()
        .and_then(|g| g.card.as_deref())
}

/// The figure named on an order card.
pub fn card_owner<'a>(state: &'a GameState, card: &str) -> Option<&'a Figure> {
    let name = card.rsplit_once('#').map_or(card, |(n, _)| n);
    state.figure_named(name)
}

/// In the fight: on the table (a reinforcement that has arrived), not
/// killed or seriously wounded, not surrendered.
pub fn in_the_fight(f: &Figure) -> bool {
    let s = st(f);
    f.active() && s.arrives.is_none() && !s.surrendered
}

/// Seriously wounded and gathered behind the lines: he fires (with
/// doubled ranges) and is fired at, but does not move.
pub fn gathered(f: &Figure) -> bool {
    let s = st(f);
    s.gathered && f.wound == Some(Wound::Serious) && s.arrives.is_none() && !s.surrendered
}

/// In the fight, or gathered behind the lines: he fires, is fired at and
/// fights.
pub fn fights_on(f: &Figure) -> bool {
    in_the_fight(f) || gathered(f)
}

/// The prefix of a side's individual soldier cards: `soldier:<side>#<k>`.
pub const SOLDIER_CARD: &str = "soldier:";

/// The side whose individual soldier card this is (None: not one).
pub fn soldier_card_side(state: &GameState, card: &str) -> Option<usize> {
    let rest = card.strip_prefix(SOLDIER_CARD)?;
    let name = rest.rsplit_once('#').map_or(rest, |(n, _)| n);
    state.sides.iter().position(|s| s.name == name)
}

/// Who acts on the card in play: the figure named on it (and the men he
/// may activate), or, on an individual soldier card, one figure of its
/// side.
#[derive(Debug, Clone, Copy)]
pub(super) enum Holder<'a> {
    Figure(&'a Figure),
    Soldier { side: usize },
}

impl Holder<'_> {
    /// The side the card belongs to.
    pub(super) fn side(&self) -> usize {
        match self {
            Self::Figure(f) => f.side,
            Self::Soldier { side } => *side,
        }
    }
}

/// Cavalry (ordered by cavalry cards only).
pub(super) fn cavalry(f: &Figure) -> bool {
    st(f).cavalry
}

/// An officer or chief (not an NCO or a tribal leader).
pub(super) fn is_officer(f: &Figure) -> bool {
    matches!(f.rank, Rank::Officer | Rank::Chief)
}

/// The command a figure holds: the scenario's, else by his rank.
pub(super) fn command_of(f: &Figure) -> CommandRank {
    st(f).command.unwrap_or(match f.rank {
        Rank::Officer => CommandRank::PlatoonOfficer,
        Rank::Chief => CommandRank::Chieftain,
        Rank::Nco => CommandRank::Nco,
        _ => CommandRank::Leader,
    })
}

/// An NCO or a tribal leader (he activates his own unit only).
pub(super) fn is_nco(f: &Figure) -> bool {
    !is_officer(f)
        && (f.rank == Rank::Nco || f.leader || st(f).command.is_some_and(CommandRank::is_nco))
}

pub(super) fn fig_event(e: LcEvent) -> Event {
    Event::LittleColonial(e)
}

pub(super) fn centroid(figs: &[&Figure]) -> Point2<f64> {
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

    /// The cards a figure puts in the order deck by himself (his level's
    /// officer cards, +1 for a cavalry officer; one for an NCO or leader).
    pub(super) fn cards_of(&self, f: &Figure) -> u32 {
        let level = st(f).level.name();
        match f.rank {
            Rank::Officer | Rank::Chief => self.data.officer_cards(level, cavalry(f)).unwrap_or(1),
            Rank::Nco => self.data.deck.nco_cards,
            _ if f.leader => self.data.deck.leader_cards,
            _ => 0,
        }
    }

    pub(super) fn cm(&self, inches: f64) -> f64 {
        inches * self.data.scale.cm_per_in
    }

    /// A table length in this rule set's centimetres.
    pub(super) fn in_cm(&self, table: Length<Inch>) -> Length<Centimetre> {
        table.convert(self.data.scale.cm_per_in)
    }

    pub(super) fn inches(&self, cm: f64) -> f64 {
        cm / self.data.scale.cm_per_in
    }

    pub(super) fn radius_in(&self, f: &Figure) -> f64 {
        self.data
            .command_radius_cm(command_of(f).name(), f.mounted() || cavalry(f))
            .unwrap_or(0.0)
            / self.data.scale.cm_per_in
    }

    fn seniority(&self, f: &Figure) -> u32 {
        self.data
            .command
            .seniority
            .get(command_of(f).name())
            .copied()
            .unwrap_or(0)
    }

    pub(super) fn is_demoralised(&self, state: &GameState, f: &Figure) -> bool {
        let empty = Self::empty_piles_for(state, f);
        demoralised(&self.data, st(f).level.name(), empty, st(f).rallied_at)
    }

    /// The card in play and its owner (an officer's, NCO's or leader's
    /// card: an individual soldier card is refused).
    pub(super) fn card_and_owner<'a>(
        &self,
        state: &'a GameState,
    ) -> Result<(String, &'a Figure), RuleError> {
        match self.card_holder(state)? {
            (card, Holder::Figure(owner)) => Ok((card, owner)),
            (card, Holder::Soldier { .. }) => Err(refuse(
                RefusalKind::Cards,
                format!("`{card}` is an individual soldier's card: it orders one man, not this"),
            )),
        }
    }

    /// The card in play and who acts on it.
    pub(super) fn card_holder<'a>(
        &self,
        state: &'a GameState,
    ) -> Result<(String, Holder<'a>), RuleError> {
        let card = card_in_play(state).ok_or_else(|| {
            refuse(
                RefusalKind::Cards,
                "no order card is in play: `draw` the next card",
            )
        })?;
        if let Some(side) = soldier_card_side(state, card) {
            return Ok((card.to_owned(), Holder::Soldier { side }));
        }
        let owner = card_owner(state, card)
            .ok_or_else(|| refuse(RefusalKind::Cards, format!("nobody holds `{card}`")))?;
        Ok((card.to_owned(), Holder::Figure(owner)))
    }

    /// On an individual soldier card, only one man acts: `n` men are
    /// refused when more than one.
    pub(super) fn one_soldier(&self, state: &GameState, n: usize) -> Result<(), RuleError> {
        match self.card_holder(state) {
            Ok((card, Holder::Soldier { .. })) if n > 1 => Err(refuse(
                RefusalKind::Cards,
                format!("`{card}` is an individual soldier card: one man acts on it, not {n}"),
            )),
            _ => Ok(()),
        }
    }

    /// The unit an NCO or leader leads: the one his `leads` names, else the
    /// one he is in.
    pub(super) fn own_unit(&self, state: &GameState, nco: &Figure) -> Option<usize> {
        match &st(nco).leads {
            Some(name) => state.unit_named(name).map(|(i, _)| i),
            None => state.units.iter().position(|u| u.figures.contains(&nco.id)),
        }
    }

    /// The rules of activation between a card's owner and a figure other
    /// than himself: cavalry cards order cavalry only; NCOs cannot
    /// activate officers and activate their own unit only; subordinates
    /// cannot activate their superiors; within the command radius.
    pub(super) fn may_activate(
        &self,
        state: &GameState,
        owner: &Figure,
        f: &Figure,
        check_radius: bool,
    ) -> Result<(), RuleError> {
        if cavalry(f) != cavalry(owner) {
            let arm = if cavalry(owner) {
                "cavalry"
            } else {
                "infantry"
            };
            return Err(refuse(
                RefusalKind::Cards,
                format!("{}'s card orders {arm} only", owner.name),
            )
            .by(f.id));
        }
        if is_nco(owner) && is_officer(f) {
            return Err(refuse(RefusalKind::CannotDo, "NCOs cannot activate officers").by(f.id));
        }
        let leads = is_officer(f) || is_nco(f) || f.leader;
        if leads && self.seniority(f) > self.seniority(owner) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} ({}) is {}'s superior: subordinates cannot activate their superiors",
                    f.name,
                    command_of(f).name(),
                    owner.name
                ),
            )
            .by(f.id));
        }
        if is_nco(owner) {
            let unit = self.own_unit(state, owner);
            let ours = unit.is_some_and(|u| state.units[u].figures.contains(&f.id));
            if !ours {
                let which = unit.map_or("none".to_owned(), |u| state.units[u].name.clone());
                return Err(refuse(
                    RefusalKind::OutOfCommand,
                    format!(
                        "{} is not of {}'s unit ({which}): an NCO activates his own unit only",
                        f.name, owner.name
                    ),
                )
                .by(f.id));
            }
        }
        if check_radius && centre_gap_in(f, owner) > self.radius_in(owner) {
            return Err(refuse(
                RefusalKind::OutOfCommand,
                format!("{} is outside {}'s command radius", f.name, owner.name),
            )
            .by(f.id));
        }
        Ok(())
    }

    /// May `f` act on the card in play? Returns the card's owner (on an
    /// individual soldier card, `f` himself).
    pub(super) fn commanded<'a>(
        &self,
        state: &'a GameState,
        f: &'a Figure,
        check_radius: bool,
    ) -> Result<&'a Figure, RuleError> {
        let (card, holder) = self.card_holder(state)?;
        if !fights_on(f) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} is not in the fight", f.name),
            )
            .by(f.id));
        }
        let owner = match holder {
            Holder::Figure(owner) => owner,
            Holder::Soldier { .. } => f,
        };
        if !in_the_fight(owner) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} is down: his card activates nobody", owner.name),
            ));
        }
        if f.side != holder.side() {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                format!("{} is not one of {}'s men", f.name, owner.name),
            )
            .by(f.id));
        }
        if f.id != owner.id {
            self.may_activate(state, owner, f, check_radius)?;
        }
        if let Holder::Soldier { .. } = holder {
            Self::soldier_is_free(state, &card, f)?;
        }
        if st(f)
            .acted
            .as_ref()
            .is_some_and(|a| a.turn == state.turn && a.card == card)
        {
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

    /// "These cards will allow the player to use an individual soldier":
    /// nobody but `f` has acted on this soldier card.
    fn soldier_is_free(state: &GameState, card: &str, f: &Figure) -> Result<(), RuleError> {
        let other = state.figures.iter().find(|g| {
            g.id != f.id
                && st(g)
                    .acted
                    .as_ref()
                    .is_some_and(|a| a.turn == state.turn && a.card == card)
        });
        match other {
            Some(g) => Err(refuse(
                RefusalKind::Cards,
                format!(
                    "`{card}` is an individual soldier card and {} has used it: one man acts on it",
                    g.name
                ),
            )
            .by(f.id)),
            None => Ok(()),
        }
    }

    pub(super) fn mark_acted(work: &mut Work, ids: &[FigureId]) {
        if let Some(card) = card_in_play(&work.now).map(str::to_owned) {
            let turn = work.now.turn;
            work.push(fig_event(LcEvent::Acted {
                figures: ids.to_vec(),
                turn,
                card,
            }));
        }
    }

    /// The optional wounded rule is in play when both sides wrote down how
    /// they treat their wounded.
    pub(super) fn wounded_rule(state: &GameState) -> bool {
        !state.sides.is_empty()
            && (0..state.sides.len()).all(|i| side_st(state, i).wounded.is_some())
    }

    /// A figure is killed: the wounded rule may turn it into a wound;
    /// the dead and seriously wounded cost morale chits.
    pub(super) fn casualty(
        &self,
        work: &mut Work,
        id: FigureId,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let f = work.fig(id)?.clone();
        if f.wound == Some(Wound::Serious) {
            // A wounded man gathered behind the lines, hit again: his chit
            // went when he was wounded.
            work.note(format!("{} is hit again: he is killed", f.name));
            work.push(Event::Wounded {
                figure: id,
                wound: Wound::Killed,
                mount: false,
            });
            return Ok(());
        }
        let result = if Self::wounded_rule(&work.now) {
            let face = work.roll1(dice, self.data.wounded.die, "wounded?", Some(id))?;
            wounded_result(&self.data, face)
        } else {
            WoundedResult::Killed
        };
        let (wound, kind) = match result {
            WoundedResult::Killed => (Wound::Killed, None),
            WoundedResult::Torso => (Wound::Serious, Some(WoundKind::Torso)),
            WoundedResult::Leg => (Wound::Serious, Some(WoundKind::Leg)),
            WoundedResult::Light => (Wound::Light, Some(WoundKind::Light)),
        };
        work.push(Event::Wounded {
            figure: id,
            wound,
            mount: false,
        });
        if let Some(kind) = kind {
            work.push(fig_event(LcEvent::WoundTaken {
                figure: id,
                wound: kind,
            }));
            work.note(format!("{} is wounded ({kind:?})", f.name));
        }
        if wound != Wound::Light {
            self.casualties(work, f.side, 1);
        }
        Ok(())
    }

    /// Casualty book-keeping: chits off the first piles; a pile emptied
    /// demoralises its level.
    pub(super) fn casualties(&self, work: &mut Work, side: usize, n: u32) {
        let mut piles = side_st(&work.now, side).piles().to_vec();
        let mut left = n;
        for p in &mut piles {
            let take = left.min(*p);
            *p -= take;
            left -= take;
        }
        self.set_piles(work, side, &piles);
    }

    /// New piles for a side; a note for each level that becomes
    /// demoralised, or recovers.
    pub(super) fn set_piles(&self, work: &mut Work, side: usize, piles: &[u32]) {
        let before = side_st(&work.now, side).empty_piles();
        work.push(fig_event(LcEvent::Chits {
            side,
            piles: piles.to_vec(),
        }));
        let after = side_st(&work.now, side).empty_piles();
        let name = work
            .now
            .sides
            .get(side)
            .map_or("?", |s| s.name.as_str())
            .to_owned();
        for level in Level::ALL {
            let i = level.index();
            if i < after && i >= before {
                work.note(format!(
                    "{name}'s {} pile is empty: all {} troops are demoralised",
                    level.name(),
                    level.name()
                ));
            } else if i >= after && i < before {
                work.note(format!(
                    "{name}'s {} troops have morale chits again",
                    level.name()
                ));
            }
        }
    }

    /// The cards that `joining` (figures coming on now) put in the deck:
    /// each officer's, NCO's and leader's own, then a card for every 10
    /// cavalry troopers or fewer, held by their leader.
    pub(super) fn cards_joining(&self, state: &GameState, joining: &[&Figure]) -> Vec<String> {
        let mut cards = Vec::new();
        for f in joining {
            cards.extend((1..=self.cards_of(f)).map(|k| format!("{}#{k}", f.name)));
        }
        // Troopers by (side, unit).
        let mut groups: Vec<((usize, Option<usize>), u32)> = Vec::new();
        for f in joining
            .iter()
            .filter(|f| cavalry(f) && self.cards_of(f) == 0)
        {
            let unit = state.units.iter().position(|u| u.figures.contains(&f.id));
            match groups.iter_mut().find(|(k, _)| *k == (f.side, unit)) {
                Some((_, n)) => *n += 1,
                None => groups.push(((f.side, unit), 1)),
            }
        }
        for ((side, unit), troopers) in groups {
            let Some(owner) = self.cavalry_leader(state, side, unit) else {
                continue;
            };
            for _ in 0..self.data.cavalry_cards(troopers) {
                let k = next_card_number(state, &cards, &owner.name);
                cards.push(format!("{}#{k}", owner.name));
            }
        }
        cards
    }

    /// Each side's individual soldier cards: its scenario's
    /// `soldier-cards`, else the data's.
    fn soldier_cards(&self, state: &GameState) -> Vec<String> {
        let mut cards = Vec::new();
        for (i, side) in state.sides.iter().enumerate() {
            let n = side_st(state, i)
                .soldier_cards
                .unwrap_or(self.data.deck.soldier_cards);
            cards.extend((1..=n).map(|k| format!("{SOLDIER_CARD}{}#{k}", side.name)));
        }
        cards
    }

    /// Who holds the cards of a side's cavalry troopers of `unit`: the
    /// cavalry officer, NCO or leader who leads the unit or is in it, else
    /// the side's most senior cavalry officer, else the unit's first man.
    fn cavalry_leader<'a>(
        &self,
        state: &'a GameState,
        side: usize,
        unit: Option<usize>,
    ) -> Option<&'a Figure> {
        let leaders = || {
            state
                .figures
                .iter()
                .filter(move |f| f.side == side && cavalry(f) && self.cards_of(f) > 0)
        };
        let of_unit = unit.and_then(|u| {
            leaders().find(|f| {
                self.own_unit(state, f) == Some(u) || state.units[u].figures.contains(&f.id)
            })
        });
        of_unit
            .or_else(|| leaders().max_by_key(|f| self.seniority(f)))
            .or_else(|| {
                unit.and_then(|u| state.units[u].figures.first())
                    .and_then(|id| state.figure(*id))
            })
    }

    /// The figures whose typed state names units or guns that exist.
    fn check_names(state: &GameState) -> Result<(), RuleError> {
        for f in &state.figures {
            let s = st(f);
            if let Some(u) = &s.leads
                && state.unit_named(u).is_none()
            {
                return Err(RuleError::Unknown {
                    what: "unit (a figure's `leads`)",
                    name: format!("{u} (led by {})", f.name),
                });
            }
            if let Some(g) = &s.crew
                && state.figure_named(g).is_none()
            {
                return Err(RuleError::Unknown {
                    what: "gun (a figure's `crew`)",
                    name: format!("{g} (served by {})", f.name),
                });
            }
        }
        Ok(())
    }

    /// Each figure's entry point (where he starts, unless the scenario
    /// says), and the wounds a scenario starts him with.
    fn prepare_figures(state: &mut GameState) {
        for f in &mut state.figures {
            let at = f.placement.center_in_table;
            let s = f.rules.little_colonial_mut();
            if s.entry_in.is_none() {
                s.entry_in = Some([at.x, at.y]);
            }
            let wound = s.wound;
            match wound {
                Some(w) if w.serious() => f.wound = Some(Wound::Serious),
                Some(_) => f.wound = Some(Wound::Light),
                None => {}
            }
        }
    }

    fn check_inner(&self, state: &GameState, command: &Command) -> Result<(), RuleError> {
        match command {
            Command::EndPhase => Ok(()),
            Command::LittleColonial(action) => match action {
                Action::Draw(p) => self.check_draw(state, p),
                Action::PlayReserved(p) => Self::check_play(state, p),
                Action::Fire(p) => self.check_fire(state, p).map(drop),
                Action::Move(p) => self.check_move(state, p).map(drop),
                Action::Artillery(p) => self.check_artillery(state, p).map(drop),
                Action::Rally(p) => self.check_rally(state, p).map(drop),
                Action::CloseCombat(p) => self.check_combat(state, p).map(drop),
                Action::Reform(p) => self.check_reform(state, p).map(drop),
                Action::Drag(p) => self.check_drag(state, p).map(drop),
                Action::Gather(p) => self.check_gather(state, p).map(drop),
                Action::Challenge(p) => self.check_challenge(state, p).map(drop),
            },
            other => Err(RuleError::Unsupported {
                rule_set: NAME.into(),
                action: crate::rules::action::action_name(other),
            }),
        }
    }

    fn resolve_inner(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        // Each resolve starts from its check's plan.
        let events = match command {
            // The order deck runs the turn (End of Turn); ending a "phase"
            // by hand only hands the table to the other side.
            Command::EndPhase => Ok(vec![next_phase_event(state, 1)]),
            Command::LittleColonial(action) => match action {
                Action::Draw(p) => self.resolve_draw(state, p, dice),
                Action::PlayReserved(p) => Self::resolve_play(state, p),
                Action::Fire(p) => self.resolve_fire(state, p, dice),
                Action::Move(p) => self.resolve_move(state, p, dice),
                Action::Artillery(p) => self.resolve_artillery(state, p, dice),
                Action::Rally(p) => self.resolve_rally(state, p),
                Action::CloseCombat(p) => self.resolve_combat(state, p, dice),
                Action::Reform(p) => self.resolve_reform(state, p),
                Action::Drag(p) => self.resolve_drag(state, p, dice),
                Action::Gather(p) => self.resolve_gather(state, p),
                Action::Challenge(p) => self.resolve_challenge(state, p, dice),
            },
            other => Err(RuleError::Unsupported {
                rule_set: NAME.into(),
                action: crate::rules::action::action_name(other),
            }),
        }?;
        Ok(super::reinforcement::after_action(self, state, events))
    }
}

/// The next free number of `owner`'s cards, counting the deck's piles and
/// the cards being added.
fn next_card_number(state: &GameState, adding: &[String], owner: &str) -> u32 {
    let deck = state.deck(ORDER_DECK);
    let piles = deck
        .into_iter()
        .flat_map(|d| d.draw.iter().chain(&d.discard).chain(&d.held));
    piles
        .chain(adding)
        .filter_map(|c| c.rsplit_once('#'))
        .filter(|(n, _)| *n == owner)
        .filter_map(|(_, k)| k.parse::<u32>().ok())
        .max()
        .unwrap_or(0)
        + 1
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

    fn figure_status(&self, raw: &Status) -> Result<FigureRules, String> {
        FigureStatus::from_raw(raw).map(FigureRules::LittleColonial)
    }

    fn unit_status(&self, raw: &Status) -> Result<UnitRules, String> {
        super::status::UnitStatus::from_raw(raw).map(UnitRules::LittleColonial)
    }

    fn side_status(&self, raw: &Status) -> Result<SideRules, String> {
        SideStatus::from_raw(raw).map(SideRules::LittleColonial)
    }

    /// The order deck from the officers, NCOs, leaders and cavalry on the
    /// table, and each side's morale chits from its men's count
    /// (reinforcements come later with their own).
    fn prepare(&self, state: &mut GameState) -> Result<(), RuleError> {
        Self::check_names(state)?;
        self.check_terrain(state)?;
        Self::prepare_figures(state);
        if state.rules.little_colonial().is_none() {
            state.rules = GameRules::LittleColonial(Default::default());
        }
        if state.deck(ORDER_DECK).is_none() {
            let on_table: Vec<&Figure> = state
                .figures
                .iter()
                .filter(|f| st(f).arrives.is_none())
                .collect();
            let mut draw = self.cards_joining(state, &on_table);
            draw.extend(self.soldier_cards(state));
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
            if side_st(state, side).chits.is_some() {
                continue;
            }
            let men = state
                .figures
                .iter()
                .filter(|f| f.side == side && st(f).arrives.is_none())
                .count();
            let piles = self.side_piles(state, side, men);
            state.sides[side].rules.little_colonial_mut().chits = Some(piles);
        }
        Ok(())
    }

    fn check(&self, state: &GameState, command: &Command) -> Result<(), RuleError> {
        self.check_inner(state, command)
    }

    /// The odds as the action resolves them (a dry run whose dice all show
    /// 1: the odds are computed before each roll, from the plan).
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

/// Piles added together, for notes.
impl LittleColonialRules {
    /// The morale chits of `men` of `side`: a "civilised" (European) side
    /// that wrote down Ruthless suffers "a 5% decrease in Morale".
    pub(super) fn side_piles(&self, state: &GameState, side: usize, men: usize) -> Vec<u32> {
        let men = u32::try_from(men).unwrap_or(u32::MAX);
        let civilised = state
            .sides
            .get(side)
            .is_some_and(|s| s.kind == crate::rules::SideKind::European);
        if civilised && policy(state, side) == Some(WoundedPolicy::Ruthless) {
            self.data
                .morale_piles_cut(men, self.data.morale.ruthless_civilised_percent)
        } else {
            self.data.morale_piles(men)
        }
    }
}

pub(super) fn piles_text(piles: &[u32]) -> String {
    piles
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Reinforcements' piles joined to a side's.
pub(super) fn joined_piles(state: &GameState, side: usize, theirs: &[u32]) -> Vec<u32> {
    add_piles(side_st(state, side).piles(), theirs)
}

/// The side's written-down wounded policy.
pub(super) fn policy(state: &GameState, side: usize) -> Option<WoundedPolicy> {
    side_st(state, side).wounded
}

/// This rule set refuses the command now, for a rule of `kind`.
pub(super) fn refuse(kind: RefusalKind, why: impl Into<String>) -> RuleError {
    refusal(NAME, kind, why)
}
