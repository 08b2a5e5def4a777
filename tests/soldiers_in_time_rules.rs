//! Soldiers in Time: every number RULES.md lists, the card arithmetic with
//! exact odds over the deck, and a scripted game whose log replays.

use crate::common::soldiers_in_time::data;

use approx::assert_relative_eq;
use spotter::game::Game;
use spotter::game::script::Script;
use spotter::rules::Registry;
use spotter::rules::soldiers_in_time::{
    Card, Damage, activation_odds, activation_passes, catapult_hit_p, damage_distribution,
    damage_result, full_deck, hits, melee_odds, mine_p, save_passes,
};

fn card(s: &str) -> Card {
    Card::parse(s).expect(s)
}

#[test]
fn command_range_and_activation() {
    let d = data();
    assert_relative_eq!(d.command.range_in, 3.0);
    // At or under the experience number passes; above fails.
    assert!(activation_passes(&d, card("5H"), 5, false));
    assert!(!activation_passes(&d, card("6H"), 5, false));
    // A face card passes.
    for c in ["JS", "QD", "KC"] {
        assert!(activation_passes(&d, card(c), 1, false), "{c}");
    }
    // A leader fails on an Ace; a follower passes on it.
    assert!(!activation_passes(&d, card("AS"), 9, true));
    assert!(activation_passes(&d, card("AS"), 9, false));
    // Exact odds over a full deck: 4 cards of each number 1..5, 12 faces.
    let deck = full_deck();
    assert_eq!(deck.len(), 52);
    assert_relative_eq!(
        activation_odds(&d, &deck, 5, false),
        32.0 / 52.0,
        epsilon = 1e-12
    );
    assert_relative_eq!(
        activation_odds(&d, &deck, 5, true),
        28.0 / 52.0,
        epsilon = 1e-12
    );
    // The five orders and whose number they are checked against.
    assert_eq!(d.order_number("forward-march", 6, &[3, 8]), Some(6));
    assert_eq!(d.order_number("volley-fire", 6, &[3, 8]), Some(6));
    assert_eq!(d.order_number("independent-fire", 6, &[3, 8]), Some(6));
    assert_eq!(d.order_number("formed-charge", 6, &[3, 8]), Some(8));
    assert_eq!(d.order_number("follow-him", 6, &[3, 8]), Some(3));
}

#[test]
fn missile_examples() {
    // Example 1: damage 3 against armour 3 only forces a morale check.
    assert_eq!(damage_result(3, 3, 6), Damage::MoraleCheck);
    // Example 2: damage 5, armour 3, experience 6 gives save number 4.
    assert_eq!(damage_result(5, 3, 6), Damage::Save(4));
    assert!(save_passes(card("4S"), 4, true, false));
    assert!(!save_passes(card("5S"), 4, true, false));
    // A face card of the owner's colour saves with a leader in range.
    assert!(save_passes(card("KH"), 4, true, true));
    assert!(!save_passes(card("KS"), 4, true, true));
    assert!(!save_passes(card("KH"), 4, true, false));
    // To hit: d10 plus modifiers at or under the fire skill.
    assert!(hits(5, 0, 5));
    assert!(!hits(5, 2, 6));
}

#[test]
fn charging_numbers() {
    let d = data();
    assert_eq!(d.melee.charging_add, 2);
    assert_eq!(d.fire.charging_target_add, 4);
    assert_eq!(d.fire.charging_firer_add, 4);
    assert_eq!(d.melee.charge_turns_max, 2);
    let plain = melee_odds(&d, 5, 5, 0);
    let charging = melee_odds(&d, 5 + d.melee.charging_add, 5, 0);
    assert_relative_eq!(plain.p_a_wins, 45.0 / 100.0, epsilon = 1e-12);
    assert!(charging.p_a_wins > plain.p_a_wins);
}

#[test]
fn special_weapons_and_figures() {
    let d = data();
    let s = &d.special;
    assert_relative_eq!(s.grenade_range_in, 8.0);
    assert_relative_eq!(s.grapeshot_range_in, 8.0);
    assert_relative_eq!(s.grapeshot_cone_deg, 45.0);
    assert_eq!(s.grapeshot_damage_sides, 10);
    assert_eq!(s.catapult_hit_max, 3);
    assert_relative_eq!(catapult_hit_p(&d), 0.3);
    // Catapult 2d10+4: 6..24; bolt thrower 2d10+2: 4..22.
    let cat = damage_distribution(s.catapult_damage_dice, 10, s.catapult_damage_add);
    assert_eq!(cat.iter().position(|p| *p > 0.0), Some(6));
    assert_eq!(cat.len() - 1, 24);
    let bolt = damage_distribution(s.bolt_thrower_damage_dice, 10, s.bolt_thrower_damage_add);
    assert_eq!(bolt.iter().position(|p| *p > 0.0), Some(4));
    assert_eq!(bolt.len() - 1, 22);
    assert_relative_eq!(s.flag_bearer_radius_in, 8.0);
    assert_relative_eq!(s.mine_square_in, 3.0);
    assert_eq!(s.mine_explodes_max, 3);
    assert_relative_eq!(mine_p(&d, 1), 0.3, epsilon = 1e-12);
    assert_relative_eq!(mine_p(&d, 2), 1.0 - 0.49, epsilon = 1e-12);
    assert_relative_eq!(s.mine_blast_in, 2.0);
    // One leader per 10 men.
    assert_eq!(d.leaders_needed(10), 1);
    assert_eq!(d.leaders_needed(25), 2);
    // Follow-through: 1 in; horses 1 in per 5 in moved.
    assert_relative_eq!(d.follow_through_in(false, 12.0), 1.0);
    assert_relative_eq!(d.follow_through_in(true, 15.0), 3.0);
}

#[test]
fn scripted_game_runs_three_turns_and_replays() {
    let registry = Registry::builtin().expect("rule sets");
    let script = Script::load(
        std::path::Path::new("scenarios/scripts/sit-skirmish.toml"),
        &registry,
    )
    .expect("script loads");
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("sit.jsonl");
    let game = script
        .play(&registry, Some(&log), |_, _, _| {})
        .expect("script plays");
    assert!(game.state().turn >= 4, "three full turns");
    let events: Vec<&spotter::game::Event> =
        game.history().iter().flat_map(|p| &p.events).collect();
    let turn_cards = events
        .iter()
        .filter(
            |e| matches!(e, spotter::game::Event::CardDrawn { deck, .. } if deck == "turn cards"),
        )
        .count();
    // A card flip opens every phase but the game's first: 8 a turn.
    assert!(turn_cards >= 3 * 8 - 1, "{turn_cards} card flips");
    let notes: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            spotter::game::Event::Note { text } => Some(text.clone()),
            _ => None,
        })
        .collect();
    let has = |s: &str| notes.iter().any(|n| n.contains(s));
    assert!(has("goes first"), "the flips say who goes first");
    // The two lone men flip on the out of command range chart.
    assert!(has("(out of command range)"), "{notes:#?}");
    // A melee's loser falls back 1 in.
    assert!(has("lost the round: he retreats 1 in"), "{notes:#?}");
    // The cornet rode over the Rebels' minefield square.
    let lee = game
        .state()
        .figure_named("Cornet Lee")
        .expect("the cornet")
        .id;
    assert!(events.iter().any(
        |e| matches!(e, spotter::game::Event::Rolled { purpose, figure, .. }
        if purpose == "mine" && *figure == Some(lee))
    ));
    let replayed = Game::resume(&log, &registry).expect("log resumes");
    assert_eq!(replayed.state(), game.state());
}
