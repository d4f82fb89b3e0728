"""The five rule presets, as plain data, one per rule book (``seed``: which one).

Each preset says what every pattern it knows is worth (a number of fan, or ``"limit"``), the
minimum, cap, fan->points table, payment scheme and the settings that shape a few predicates.
Which pattern replaces which is not listed pair by pair: it follows from what the patterns imply
(``patterns.IMPLIES``) by one rule (``RulePreset.relations``); a preset lists only the pairs its
seed treats otherwise, ``stacks`` (implied, scored together all the same) and ``suppresses``
(not implied, dropped all the same). Where a seed is silent or contradicts itself the
choice is written in ``choices`` with a one-line reason, and is a setting a house rule can change
(``--config``). Patterns absent from a preset score nothing under it; a hand shape whose pattern
is absent (seven pairs under the new styles) is not a legal win there.
"""

from __future__ import annotations

HK_OLD_STYLE = {
    "id": "hk-old-style",
    "name": "Hong Kong Old Style",
    "seed": "mahjong wiki, Hong Kong Old Style Scoring",
    "min_fan": 3,
    "cap": 10,
    "limit_fan": "cap",
    "table": "traditional",
    "payment": "discarder-double",
    "dealer_doubling": False,
    "bonus_counts_for_min": True,
    "settings": {
        "all_chows_pair": "suited",
        "four_concealed_pungs_self_drawn_only": True,
    },
    "patterns": {
        "no_flowers": 1, "seat_flower": 1, "seat_season": 1, "all_chows": 1, "dragon_pung": 1,
        "seat_wind": 1, "round_wind": 1, "self_drawn": 1, "last_tile_draw": 1,
        "last_tile_discard": 1, "robbing_kong": 1, "kong_replacement": 1,
        "all_flowers": 2, "all_seasons": 2, "all_pungs": 3, "half_flush": 3,
        "little_three_dragons": 4, "seven_pairs": 4, "full_flush": 6,
        "four_concealed_pungs": "limit", "big_three_dragons": "limit",
        "little_four_winds": "limit", "big_four_winds": "limit", "all_honours": "limit",
        "all_terminals": "limit", "nine_gates": "limit", "thirteen_orphans": "limit",
        "four_kongs": "limit", "jade_dragon": "limit", "ruby_dragon": "limit",
        "pearl_dragon": "limit", "heavenly": "limit", "earthly": "limit",
    },
    "suppresses": {},
    "stacks": {},
    "choices": {
        "min_fan": "the rule book says 'decide; 3 fan is common'",
        "cap": "the rule book's fan-laak table tops out at its 10+ row",
        "payment": "the rule book's table variation and Example 1 (32 + 16 + 16): discarder 2x, others 1x, self-draw 2x each",
        "dealer_doubling": "Example 2: the dealer wins self-drawn and each opponent pays 32, no doubling",
        "implied": "the rule book: All Flowers 'Implies Seat Flower' (2 fan in all); read as the rule for every implied pair: Little Three Dragons (4) includes its two Dragon Pungs",
        "settings.four_concealed_pungs_self_drawn_only": "the rule book: 'four concealed pungs and a pair and self-drawn win'",
        "patterns.kong_replacement": "the rule book: 'counts as self-drawn', so Self-drawn is scored too (1 + 1); --double-kong scores as this",
        "patterns.last_tile_draw": "rule book silent on adding Self-drawn; worth no more than it (1), so scored on top, as Out on Replacement is",
        "patterns.jade_dragon": "the rule book: 'pung (or kong) of bamboo tiles and a pung of green dragons': pungs only, no chows (also Ruby and Pearl Dragon)",
    },
}

HK_NEW_STYLE = {
    "id": "hk-new-style",
    "name": "Hong Kong New Style",
    "seed": "mahjong wiki, Hong Kong New Style",
    "min_fan": 5,
    "cap": None,
    "limit_fan": 100,
    "table": "fan",
    "payment": "discarder-single",
    "dealer_doubling": False,
    "bonus_counts_for_min": True,
    "settings": {
        "all_chows_min_suits": 2,
        "melded_kong_counts_concealed": True,
    },
    "patterns": {
        "special_eyes": 1, "all_chows": 2, "two_suits": 2, "no_honours": 2,
        "pure_double_chow": 2, "concealed_hand": 2, "wait": 2, "kong_replacement": 2,
        "honour_pung": 2, "four_revealed_pungs": 2, "terminal_chows": 2,
        "terminal_pungs": 3, "two_kongs": 3, "robbing_kong": 3, "last_tile_draw": 3,
        "last_tile_discard": 3, "last_of_kind": 3, "four_in_two": 3, "a_tail": 3,
        "bridge_tile": 4, "fully_concealed": 5,
        "pure_straight": 7, "mixed_triple_chow": 7, "outside_hand": 7,
        "semi_self_sufficient": 7, "ready_hand": 7, "five_doors": 7, "double_jeopardy": 7,
        "three_concealed_pungs": 7, "half_flush": 7, "pure_shifted_pungs": 7,
        "four_in_three": 7, "all_pungs": 7,
        "melded_hand": 10, "pure_outside": 10,
        "three_kongs": 15, "pure_triple_chow": 15, "three_winds": 15, "two_dragon_suits": 15,
        "little_three_dragons": 20, "double_lao_shao": 20,
        "three_numbers": 30, "all_linked": 30,
        "full_flush": 40, "two_pure_double_chows": 40, "four_in_four": 40,
        "four_concealed_pungs": 50, "mixed_terminals": 50,
        "big_three_dragons": 60, "little_four_winds": 60, "all_linked_three_numbers": 60,
        "big_four_winds": 100, "special_eye_pungs": 100, "all_terminals": 100,
        "all_contain_one": 100, "all_contain_nine": 100, "all_honours": 100, "heavenly": 100,
        "earthly": 100, "two_numbers": 100, "four_kongs": 100, "thirteen_orphans": "limit",
    },
    "suppresses": {},
    "stacks": {},
    "choices": {
        "min_fan": "the rule book: 'A minimum of 5 fan is needed before calling mahjong'",
        "table": "the rule book gives no fan->points table and its '3 fan (16 points)' fits none; fan are paid as points",
        "payment": "the rule book lists three discard options; the first, 'Discarder pays winner full score' (discarder-single), is the default; 'double the full score' is discarder-pays-all, 'full score and the other players half' is half-responsibility; self-draw: 'All player's pay the full value'",
        "cap": "the rule book names no cap; values run to 100 and add up",
        "patterns.honour_pung": "'Honor Tiles' is counted for each such pung, as every other rule book counts them; a double wind pung once",
        "patterns.thirteen_orphans": "the rule book: 'four sets and a pair (with the exception of special limit hands)': thirteen orphans is that limit hand, 100 fan with nothing added",
        "limit_fan": "the rule book's value for its one special limit hand, thirteen orphans: 100",
        "implied": "the rule book: Bridge Tile '(Implies closed wait)', 4 fan in all; read as the one rule for every implied pair (How patterns combine): a pattern worth more covers what it implies (Melded Hand and Semi-self Sufficient their Wait, Little Three Dragons its two Honor Tiles pungs, Two Numbers its All Pungs), one worth no more adds to it (Four Revealed Pungs, 2, on the All Pungs it implies, 7)",
        "settings.melded_kong_counts_concealed": "the rule book: 'A melded kong is considered concealed'",
        "settings.all_chows_min_suits": "the rule book: 'all chows in more than one suit'",
        "patterns.seven_pairs": "the rule book has no seven pairs: 'four sets and a pair (with the exception of special limit hands)'",
        "patterns.kong_replacement": "'Kong on Kong: winning on a tile that follows a kong' is the replacement-tile win",
        "patterns.mixed_terminals": "the rule book's All Terminals and Honors (Huen Yiao Dui) is a hand of sets and a pair of terminals and honours: thirteen orphans, a special hand, is not one",
    },
}

CHINESE_NEW_STYLE = {
    "id": "chinese-new-style",
    "name": "Chinese New Style (Four Winds)",
    "seed": "Four Winds rule collection, Chinese New Style section 5",
    "min_fan": 0,
    "cap": None,
    "limit_fan": 20,
    "table": "6-9-12",
    "payment": "discarder-single",
    "dealer_doubling": False,
    "bonus_counts_for_min": False,
    "settings": {
        "all_chows_pair": "no_value_wind",
        "fully_concealed_allows_kongs": False,
    },
    "patterns": {
        "dragon_pung": 1, "seat_wind": 1, "round_wind": 1,
        "seat_flower": 1, "seat_season": 1, "all_flowers": 2, "all_seasons": 2,
        "all_bonus": 12, "no_flowers": 1,
        "mixed_triple_chow": 3, "pure_double_chow": 2, "two_pure_double_chows": 9,
        "terminal_chows": 1, "pure_straight": 3, "terminal_pungs": 1,
        "little_three_dragons": 6, "melded_hand": 2, "concealed_hand": 1, "fully_concealed": 3,
        "all_chows": 1, "all_pungs": 3, "all_simples": 1, "outside_hand": 2, "pure_outside": 3,
        "mixed_terminals": 6, "five_doors": 3, "two_suits": 1, "half_flush": 3, "full_flush": 9,
        "four_in_two": 1, "four_in_three": 1, "four_in_four": 1,
        "self_drawn": 1, "one_chance_chow": 1, "out_on_pair": 1, "last_of_kind": 1,
        "last_tile_draw": 1, "last_tile_discard": 1, "kong_replacement": 1, "robbing_kong": 1,
        "double_kong": 6, "big_three_dragons": 9, "little_four_winds": 12,
        "four_kongs": "limit", "four_concealed_pungs": "limit", "big_four_winds": "limit",
        "all_honours": "limit", "all_terminals": "limit", "nine_gates": "limit",
        "thirteen_orphans": "limit", "heavenly": "limit", "earthly": "limit",
    },
    "suppresses": {
        "melded_hand": ["one_chance_chow"],
    },
    "stacks": {
        "mixed_terminals": {"all_pungs": "the rule book: All Terminals and Honors 'Does not imply scoring for Pung hand'"},
        "last_tile_draw": {"self_drawn": "the rule book: Out on the last tile of the Wall 'Does not imply scores for Self-drawn last tile'"},
    },
    "choices": {
        "min_fan": "the rule book names no minimum and its settling table prices hands of 0, 1 and 2 faan: any complete hand wins (a house minimum: --min-fan)",
        "limit_fan": "a limit hand is '1600% of Limit' (limit 64) = 1024, the table's 20+ row; nothing is added to it",
        "payment": "the rule book: 'payments to the winner only' and a hand of 20 faans 'pays 1,024 points': on a discard the discarder pays the hand's value alone; on a self-draw (the rule book is silent) each loser pays it, the common reading",
        "bonus_counts_for_min": "the rule book: bonus faans count only once the hand reaches the minimum without them",
        "implied": "the rule book's notes: a pattern that 'implies' another includes it (Big Three Dragons 'Implies scoring for all dragons', Exposed hand 'Implies ... Out on a pair', Fully concealed 'Always implies Concealed hand'); read as the rule for every implied pair: Little Three Dragons includes its two dragon pungs, Kong on Kong its Out on a supplement tile",
        "supplement_tile": "the rule book prices Out on a supplement tile (1) and Kong on Kong (6) apart from Self-drawn last tile (1), and says of the like Out on the last tile of the Wall: 'Does not imply scores for Self-drawn last tile'; both wins are paid as self-drawn, so both score Self-drawn as well (1 + 1, 6 + 1)",
        "suppresses.melded_hand": "the rule book: Exposed hand 'Implies One-chance hand and Out on a pair' (the wait on the pair is the one chance)",
        "settings.all_chows_pair": "the rule book: the pair must not be the player's own wind or the wind of the round",
        "settings.fully_concealed_allows_kongs": "the rule book: 'No Kongs are allowed' (then Concealed 1 + Self-drawn 1)",
        "patterns.seven_pairs": "the rule book has no seven pairs hand",
    },
}

HK_COMMON = {
    "id": "hk-common",
    "name": "Hong Kong common rules (Wikipedia)",
    "seed": "Hong Kong mahjong scoring rules",
    "min_fan": 3,
    "cap": 13,
    "limit_fan": "cap",
    "table": "traditional",
    "payment": "discarder-double",
    "dealer_doubling": True,
    "bonus_counts_for_min": True,
    "settings": {
        "robbed_kong_pays_all": True,
        "content_minimum": True,
    },
    "patterns": {
        "all_chows": 1, "all_pungs": 3, "seven_pairs": 4, "half_flush": 3, "full_flush": 7,
        "all_honours": 10, "little_three_dragons": 5, "big_three_dragons": 8,
        "little_four_winds": 6, "big_four_winds": 13, "thirteen_orphans": 13, "four_kongs": 13,
        "four_concealed_pungs": 10, "all_terminals": 10, "nine_gates": 10,
        "seat_wind": 1, "round_wind": 1, "dragon_pung": 1, "mixed_terminals": 1,
        "self_drawn": 1, "concealed_hand": 1, "robbing_kong": 1, "last_tile": 1,
        "kong_replacement": 1, "double_kong": 8, "heavenly": 13, "earthly": 13,
        "no_flowers": 1, "seat_flower": 1, "seat_season": 1, "all_flowers": 2, "all_seasons": 2,
    },
    "suppresses": {
        "little_four_winds": ["seat_wind", "round_wind"],
    },
    "stacks": {
        "double_kong": {"self_drawn": "the rule book: Win by Double-Kong '9 (8 bonus +1 from self-pick)'"},
    },
    "choices": {
        "min_fan": "the rule book: 'typically 1 or 2', but its tables 'assume 3'",
        "cap": "the rule book: '13 faan is considered the absolute limit'",
        "table": "traditional by default (it pays below 3 fan); simplified and canton by --table",
        "dealer_doubling": "the rule book's modifiers: East wins, every loser x2; East loses, East x2; two modifiers redouble",
        "implied": "the rule book: 'only the criteria with the tighter requirements are scored' (a dragon meld inside Small Dragons; All Honor Tiles, Great Winds, All Kongs and Orphans: 'All in Triplets not counted'; seven pairs: 'Bonus from Wall is not awarded'; Self Triplets: the 'bonus fan of winning from the wall' not awarded)",
        "suppresses.little_four_winds": "the rule book's subset rule: the wind melds inside Small Winds are not scored again as Seat or Prevailing Wind, as the dragon melds inside Small Dragons",
        "patterns.kong_replacement": "the rule book: Win by Kong '2 (1 bonus + 1 from self-pick)'",
        "patterns.double_kong": "the rule book: '9 (8 bonus + 1 from self-pick)'",
        "settings.robbed_kong_pays_all": "the rule book: robbing a kong, 'a 12-piece penalty will be imposed on the player being robbed' (he pays for all)",
        "settings.content_minimum": "the rule book: 'In variations with scoring minimums, it is generally accepted that, barring improbable high-scoring hands (such as the Heavenly Hand described below, even if the winning hand is otherwise scoreless), at least one point must be from this set of criteria', the criteria 'based on the contents of the hand' (its two tables: Common Hand to Nine Gates, Seat Wind to Mixed Orphans), not those 'based on the winning condition' (Self-Pick, Win from Wall, Robbing Kong, Last Catch, Win by Kong and Double-Kong) or on 'bonus tiles'; the improbable high-scoring hands excepted are those worth the limit (Heavenly and Earthly Hand, 13), as is a hand that reaches the limit only from the winning condition ('It is possible to obtain the maximum fan (13) only from winning condition criteria')",
    },
}

HK_GUIDE = {
    "id": "hk-guide",
    "name": "Hong Kong Mahjong Scoring Guide",
    "seed": "Hong Kong Mahjong Scoring Guide",
    "min_fan": 3,
    "cap": 10,
    "limit_fan": "cap",
    "table": "canton",
    "payment": "discarder-pays-all",
    "dealer_doubling": False,
    "bonus_counts_for_min": True,
    "settings": {
        "instant_bonus_win": True,
        "implied_patterns": "added",
    },
    "optional": ["seven_pairs", "three_kongs", "pure_straight", "mixed_triple_chow",
                 "pure_double_chow", "pure_triple_chow", "four_identical_chows"],
    "patterns": {
        "no_flowers": 1, "seat_flower": 1, "seat_season": 1, "all_flowers": 2, "all_seasons": 2,
        "seven_bonus": 3, "all_bonus": 8,
        "self_drawn": 1, "concealed_hand": 1, "last_tile": 1, "kong_replacement": 1,
        "double_kong": 8, "robbing_kong": 1,
        "half_flush": 3, "full_flush": 7,
        "dragon_pung": 1, "round_wind": 1, "seat_wind": 1, "little_three_dragons": 5,
        "big_three_dragons": 8, "little_four_winds": 6, "big_four_winds": "limit",
        "all_honours": 10, "all_pungs": 3, "four_concealed_pungs": 8, "mixed_terminals": 4,
        "all_terminals": "limit", "four_kongs": "limit", "all_chows": 1,
        "thirteen_orphans": "limit", "nine_gates": "limit", "heavenly": "limit",
        "earthly": "limit", "man": "limit",
        "seven_pairs": 3, "three_kongs": 3, "pure_straight": 3, "mixed_triple_chow": 3,
        "pure_double_chow": 1, "pure_triple_chow": 3, "four_identical_chows": "limit",
    },
    "suppresses": {
        "little_four_winds": ["half_flush", "seat_wind", "round_wind"],
        "little_three_dragons": ["dragon_pung"],
        "big_three_dragons": ["dragon_pung"],
    },
    "stacks": {},
    "choices": {
        "min_fan": "the rule book: 'It is common to set a requirement of 3 fan to win a hand'",
        "cap": "the rule book: 'often set to 10 fan (128 points), but some rules allow going up to 13 (384)'",
        "payment": "the rule book's 全銃: self-draw, each pays the value; discard, the discarder alone pays 2x",
        "optional": "the rule book's 'non-traditional hands' are on; set settings.include_optional = false to drop them",
        "patterns.seat_season": "the rule book has one 'Seat Flower' entry for a flower or a season of the seat; holding both counts each, as the Wikipedia rules, Four Winds and the Old Style page do",
        "settings.implied_patterns": "the rule book: 'To score a hand, add up the number of “fan” from the list of hands below', and it writes out where a hand is not added (the dragon triplets under Small and Big Three Dragons, the half flush and wind triplets under Small Four Winds); where it is silent, every hand that holds is added: Concealed Hand on Seven Pairs (3 + 1), All Triplets on Four Concealed Triplets (8 + 3), on Mixed Terminals (4 + 3) and on All Honors (10 + 3), Seat Flower on a Set of Flowers (2 + 1), the sets of flowers on 8 Flowers, Two Identical Sequences on Three (3 + 1), After a Kong and Self Draw on After Multiple Kongs (8 + 1 + 1); a Limit hand is the limit, with nothing added",
        "suppresses.little_three_dragons": "the rule book: Small Three Dragons, 'do not count points for individual dragon triplets'",
        "suppresses.big_three_dragons": "the rule book: Big Three Dragons, 'do not count points for individual dragon triplets'",
        "suppresses.little_four_winds": "the rule book: Small Four Winds 'does not stack with half flush, do not count points for individual wind triplets'",
        "settings.four_concealed_pungs": "'all of them self drawn' read as four concealed pungs, as the Wikipedia rules and Four Winds read it",
        "settings.instant_bonus_win": "the rule book: with 7 or 8 flowers 'you have the option to win immediately'",
    },
}

PRESET_DATA = {p["id"]: p for p in (HK_OLD_STYLE, HK_NEW_STYLE, CHINESE_NEW_STYLE, HK_COMMON, HK_GUIDE)}
PRESET_IDS = tuple(PRESET_DATA)

DEFAULT_SETTINGS = {
    "seven_pairs_allow_four": False,
    "all_chows_pair": "any",
    "all_chows_min_suits": 1,
    "fully_concealed_allows_kongs": True,
    "melded_kong_counts_concealed": False,
    "four_concealed_pungs_self_drawn_only": False,
    "little_four_winds_pair_rule": "any",
    "instant_bonus_win": False,
    "include_optional": True,
    "robbed_kong_pays_all": False,
    "implied_patterns": "included",
    "content_minimum": False,
}

SETTING_HELP = {  # what each setting does, for the pages of docs/rules
    "seven_pairs_allow_four": "seven pairs may hold two pairs of one tile",
    "all_chows_pair": "what All Chows' pair may be: any, suited, no_value_wind (not the seat or round wind), "
                      "no_value (no dragon either)",
    "all_chows_min_suits": "the fewest suits All Chows may use",
    "fully_concealed_allows_kongs": "Fully Concealed Self-drawn may hold a concealed kong",
    "melded_kong_counts_concealed": "a melded kong counts as a concealed set",
    "four_concealed_pungs_self_drawn_only": "Four Concealed Pungs must be self-drawn",
    "little_four_winds_pair_rule": "any, or no_value_wind: Little Four Winds' pair is not the seat or round wind",
    "instant_bonus_win": "seven or eight bonus tiles may win at once (no winning tile)",
    "include_optional": "the preset's optional patterns are scored",
    "robbed_kong_pays_all": "the player whose kong is robbed pays for everyone",
    "implied_patterns": "included: a pattern covers the ones it implies that are worth less (How patterns "
                        "combine); added: every pattern that holds is added, but for limit hands and the "
                        "preset's suppresses",
    "content_minimum": "a win below the limit needs at least 1 fan from the hand's contents (sets, pair, suits, "
                       "honours), not only from how it was won or from bonus tiles",
}

SETTING_CHOICES = {
    "all_chows_pair": ("any", "suited", "no_value_wind", "no_value"),
    "little_four_winds_pair_rule": ("any", "no_value_wind"),
    "implied_patterns": ("included", "added"),
}
