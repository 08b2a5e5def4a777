//! Decks of cards shared by the card-driven rule sets: a draw recorded as
//! a `CardDrawn` event, an empty deck reshuffled from its discards, and the
//! exact odds of the next card.
//!
//! # Conventions
//! A deck in the state is shuffled: every card of its draw pile is equally
//! likely next, so odds are counts over the pile.

use super::RuleError;
use super::common::{Work, refusal};
use crate::core::RefusalKind;
use crate::core::dice::Dice;
use crate::core::odds::card_probability;
use crate::rules::{Event, GameState};

/// The cards the next draw comes from: the draw pile, or everything back
/// in it when it is empty and `reshuffle` is allowed.
pub fn next_pile(state: &GameState, deck: &str, reshuffle: bool) -> Vec<String> {
    let Some(d) = state.deck(deck) else {
        return Vec::new();
    };
    if d.draw.is_empty() && reshuffle {
        d.discard.iter().chain(&d.held).cloned().collect()
    } else {
        d.draw.clone()
    }
}

/// Exact probability that the next card satisfies `pred`.
pub fn p_next(
    state: &GameState,
    deck: &str,
    reshuffle: bool,
    pred: impl FnMut(&String) -> bool,
) -> f64 {
    card_probability(&next_pile(state, deck, reshuffle), pred)
}

/// Draws a card (a uniform pick from the draw pile, recorded). An empty
/// pile is reshuffled from the discards first when `reshuffle` is set.
pub fn draw(
    rule_set: &'static str,
    work: &mut Work,
    deck: &str,
    dice: &mut dyn Dice,
    reshuffle: bool,
) -> Result<String, RuleError> {
    let d = work.now.deck(deck).ok_or(RuleError::Unknown {
        what: "deck",
        name: deck.to_owned(),
    })?;
    if d.draw.is_empty() {
        if !reshuffle || (d.discard.is_empty() && d.held.is_empty()) {
            return Err(refusal(
                rule_set,
                RefusalKind::Cards,
                format!("the deck `{deck}` is empty"),
            ));
        }
        work.push(Event::DeckShuffled {
            deck: deck.to_owned(),
            added: Vec::new(),
        });
    }
    let pile = next_pile(&work.now, deck, false);
    let card = pile[dice.pick(pile.len())?].clone();
    work.push(Event::CardDrawn {
        deck: deck.to_owned(),
        card: card.clone(),
    });
    Ok(card)
}
