"""The seeds' own words for every pattern and rule of each preset, quoted line by line.

Each preset comes from one seed document (named in ``SOURCES`` by its title).
``WORDS[preset][pattern]`` holds the seed's lines that define the pattern as written (the cells
of a table row joined by " · "); ``RULES[preset]`` the lines behind its minimum, payments and
fan table. They feed the meaning tables (``scoring.explain``), so that a reader can check every
pattern against its seed.
"""

from __future__ import annotations

SOURCES: dict[str, tuple[str, str]] = {  # preset -> (the seed's title, where in it)
    'hk-old-style':
        ('Hong Kong Old Style Scoring', 'the mahjong wiki page, its Scoring Table'),
    'hk-new-style':
        ('Hong Kong New Style', 'the mahjong wiki page, its Scoring Table'),
    'chinese-new-style':
        ('Four Winds Rule Collection – Chinese New Style', 'section 5, Scoring'),
    'hk-common':
        ('Hong Kong mahjong scoring rules', 'the Wikipedia-style article, its criteria for scoring faan'),
    'hk-guide':
        ('Hong Kong Mahjong Scoring Guide', 'its List of Hand Values'),
}

WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    'hk-old-style': {
        'all_chows': (
            '1 fan · All Chows · Hand consists only of chows and a pair of suit tiles. · Chow-Based',
        ),
        'all_flowers': (
            '2 fan · All Flowers · Hand contains all flower tiles. Implies Seat Flower. · Special',
        ),
        'all_honours': (
            'Limit · All Honors · Hand consists only of honor tiles. · Terminals/Honors',
        ),
        'all_pungs': (
            '3 fan · All Pungs · Hand consists all pungs. · Pung-Based',
        ),
        'all_seasons': (
            '2 fan · All Seasons · Hand contains all seasons tiles. Implies Seat Season. . · Special',
        ),
        'all_terminals': (
            'Limit · All Terminals · Hand consists only of terminals. · Terminals/Honors',
        ),
        'big_four_winds': (
            'Limit · Big Four Winds · Hand has four pungs of winds. · Terminals/Honors',
        ),
        'big_three_dragons': (
            'Limit · Big Three Dragons · Hand has three dragon pungs. · Terminals/Honors',
        ),
        'dragon_pung': (
            '1 fan · Dragon Pung · Hand includes a pung (or kong) of dragons. · Terminals/Honors',
        ),
        'earthly': (
            "Limit · Blessing of Earth · Non-east player wins on East's first discard. · Going Out",
        ),
        'four_concealed_pungs': (
            'Limit · Four Concealed Pungs · Hand has four concealed pungs and a pair and self-drawn '
            'win. · Pung-Based',
        ),
        'four_kongs': (
            'Limit · All Kongs · Hand has four kongs and a pair. · Kong-Based',
        ),
        'full_flush': (
            '6 fan · Full Flush · Hand consists only of suit tiles of one suit. · Suit-Based',
        ),
        'half_flush': (
            '3 fan · Half Flush · Hand consists only of honors and suit tiles of one suit. · Suit-Based',
        ),
        'heavenly': (
            'Limit · Blessing of Heaven · East wins with initial hand. · Going Out',
        ),
        'jade_dragon': (
            'Limit · Jade Dragon · Hand is composed of pung (or kong) of bamboo tiles and a pung of '
            'green dragons. · Suit-Based',
        ),
        'kong_replacement': (
            '1 fan · Out on Replacement · Winning on the replacement tile drawn after declaring a kong. '
            'Counts as self-drawn. · Going Out',
        ),
        'last_tile_discard': (
            '1 fan · Last Tile Discard · Win by discard on the discard after the last tile of the wall '
            'is drawn. · Going Out',
        ),
        'last_tile_draw': (
            '1 fan · Last Tile Draw · Self-drawn win on the last tile of the wall. · Going Out',
        ),
        'little_four_winds': (
            'Limit · Little Four Winds · Hand has three pungs and a pair of winds. · Terminals/Honors',
        ),
        'little_three_dragons': (
            '4 fan · Little Three Dragons · Hand has two dragon pungs and a pair of the third dragon. · '
            'Terminals/Honors',
        ),
        'nine_gates': (
            'Limit · Nine Gates · Concealed hand of 1112345678999 in one suit and winning on any tile '
            'of the same suit. · Suit-Based',
        ),
        'no_flowers': (
            '1 fan · No Flowers and no Seasons · Hand contains no flowers and seasons. · Special',
        ),
        'pearl_dragon': (
            'Limit · Pearl Dragon · Hand is composed of pung (or kong) of dot tiles and a pung of white '
            'dragons. · Suit-Based',
        ),
        'robbing_kong': (
            '1 fan · Robbing the Kong · Winning off the tile that somebody adds to a melded pung. · '
            'Going Out',
        ),
        'round_wind': (
            "1 fan · Seat/Prevalent Wind · Hand includes a pung (or kong) of the player's seat or round "
            'wind. · Terminals/Honors',
        ),
        'ruby_dragon': (
            'Limit · Ruby Dragon · Hand is composed of pung (or kong) of character tiles and pung of '
            'red dragons. · Suit-Based',
        ),
        'seat_flower': (
            "1 fan · Seat Flower · Hand contains player's flower. · Special",
        ),
        'seat_season': (
            "1 fan · Seat Season · Hand contains player's Season. · Special",
        ),
        'seat_wind': (
            "1 fan · Seat/Prevalent Wind · Hand includes a pung (or kong) of the player's seat or round "
            'wind. · Terminals/Honors',
        ),
        'self_drawn': (
            '1 fan · Self-drawn Win · Winning on a tile drawn from the wall. · Going Out',
        ),
        'seven_pairs': (
            '4 fan · Seven Pairs · Hand is composed of seven pairs of tiles. · Special',
        ),
        'thirteen_orphans': (
            'Limit · Thirteen Orphans · Hand made of single tiles of 12 honors and terminals, plus a '
            'pair of the 13th. · Special',
        ),
    },
    'hk-new-style': {
        'a_tail': (
            '3 A Tail Wei Wei Two pure shifted pungs and a pair. Can also be claimed as two pungs and a '
            'pair of wind tiles.',
        ),
        'all_chows': (
            '2 All Chows Ping Hu 平胡 Hand that contains all chows in more than one suit.',
        ),
        'all_contain_nine': (
            '100 All Contain Nine Chuan Dai Ju Hand is made up with four 789 chows and a pair of 9s.',
        ),
        'all_contain_one': (
            '100 All Contain One Chuan Dai Yi Hand is made up with four 123 chows and a pair of 1s.',
        ),
        'all_honours': (
            '100 All Honors Chuan Tsu Hand is composed entirely of only honor tiles.',
        ),
        'all_linked': (
            '30 All Linked Chuan Dai A sets including the pair include a common numbered tile.',
        ),
        'all_linked_three_numbers': (
            '60 All Linked with Three Numbers Chuan Dai San Shu Hand includes mixed and pure chows of '
            'the same sequence and a pair containing a number from that sequence.',
        ),
        'all_pungs': (
            '7 All Pungs Dui Dui Hu Hand includes four pungs (or kongs) and a pair.',
        ),
        'all_terminals': (
            '100 All Terminals Ching Yiao Dui Hand made with only terminal suit tiles.',
        ),
        'big_four_winds': (
            '100 Big Four Winds Dah Szu Xi Hand includes pungs (or kongs) of all four wind tiles.',
        ),
        'big_three_dragons': (
            '60 Big Three Dragons Dah San Yuan Hand includes pungs (or kongs) of all three dragon '
            'tiles.',
        ),
        'bridge_tile': (
            '4 Bridge Tile Kan Shin Wu Winning on a 5, which completes a closed wait. (Implies closed '
            'wait). Going Out',
        ),
        'concealed_hand': (
            '2 Concealed Hand Men Chien Ching Hand consists entirely of concealed sets and is won by a '
            'discard. A melded kong is considered concealed. Going Out',
        ),
        'double_jeopardy': (
            '7 Double Jeopardy Shuang Jueh Jarng Winning on a tile that is the last of its kind (out of '
            'eight tiles) when waiting on a two-sided wait. Going Out',
        ),
        'double_lao_shao': (
            '20 Double Lao Shao Shuang Piao Hand includes two sets of terminal chows (123 and 789) from '
            'different suits.',
        ),
        'earthly': (
            '100 Blessing of Earth Dee Hu Winning on the first discard from the dealer. Going Out',
        ),
        'five_doors': (
            '7 All Types Wu Men Chih Hand in which each set, including the pair, is composed of a '
            'different type of tile (characters, bamboos, dots, winds, and dragons).',
        ),
        'four_concealed_pungs': (
            '50 Four Concealed Pungs Szu An Kan Hand includes four concealed pungs. A melded kong is '
            'considered concealed.',
        ),
        'four_in_four': (
            '40 Four into Four Szu Gui Szu Hand uses all four of a single suit tile in four different '
            'sets. Special',
        ),
        'four_in_three': (
            '7 Four into three Szu Gui San Hand uses all four of a single suit tile in three different '
            'sets. Special',
        ),
        'four_in_two': (
            '3 Two into Four Szu Gui Er Hand uses all four of a single suit tile in two different sets.',
        ),
        'four_kongs': (
            '100 Four Kongs Shuh Bar Luo Han Hand includes four kongs.',
        ),
        'four_revealed_pungs': (
            '2 Four Revealed Pungs Ching Szu Peng Hand includes four melded pungs. Pung-Based',
        ),
        'full_flush': (
            '40 Full Flush Ching Yi Sher Hand consists entirely of one suit. Honor tiles are '
            'prohibited.',
        ),
        'fully_concealed': (
            '5 Fully Concealed Hand Men Ching Buh Chiu Hand consists entirely of concealed sets and is '
            'won by self-draw. A melded kong is considered concealed.',
        ),
        'half_flush': (
            '7 Half Flush Huen Yi Sher Hand composed entirely of honors and suit tiles of only one '
            'suit.',
        ),
        'heavenly': (
            '100 Blessing of Heaven Tian Hu Hand where dealer wins upon the initial deal. Going Out',
        ),
        'honour_pung': (
            '2 Honor Tiles Fung 风 Hand includes either a pung of seat wind, prevalent wind, or dragon '
            'tiles. Terminals/Honors',
        ),
        'kong_replacement': (
            '2 Kong on Kong Garng Winning on a tile that follows a kong. Going Out',
        ),
        'last_of_kind': (
            '3 Last Tile Jueh Jarng Winning on a tile that is the last of its kind. This fact must be '
            'clear based on the visible discards. Going Out',
        ),
        'last_tile_discard': (
            '3 Last Tile Drawn and Discarded Hai Di Chong Winning on the last tile of the wall which '
            'was drawn and discarded. Going Out',
        ),
        'last_tile_draw': (
            '3 Last Tile Draw Hai Dee Self-drawn win on the last tile of the wall. Going Out',
        ),
        'little_four_winds': (
            '60 Little Four Winds Xiao Szu Xi Hand includes three pungs of winds, and a pair of the '
            'fourth wind.',
        ),
        'little_three_dragons': (
            '20 Little Three Dragons Xiao San Yuan Hand includes two pungs of dragons and pair of the '
            'third dragon.',
        ),
        'melded_hand': (
            '10 Melded Hand Chuan Chiu Ren Hand includes four melded sets and is won by discard. Going '
            'Out',
        ),
        'mixed_terminals': (
            '50 All Terminals and Honors Huen Yiao Dui Hand consists entirely of terminal and honor '
            'tiles.',
        ),
        'mixed_triple_chow': (
            '7 Mixed Triple Chow San Xiang Fung Hand includes three chows of the same numerical '
            'sequence, one in each suit.',
        ),
        'no_honours': (
            '2 No Honor Tiles Duan Yiao Hand uses suit tiles only.',
        ),
        'outside_hand': (
            '7 Mixed Terminal Chows and Honors Huen Dai Yiao Hand includes terminal chows and honor '
            'tiles. The pair maybe either be of terminals or honor tiles. Terminals/Honors',
        ),
        'pure_double_chow': (
            '2 Pure Double Chow Yi Ban Gao Hand includes two identical chows in the same suit.',
        ),
        'pure_outside': (
            '10 All Terminal Sets Ching Yiao Hand includes terminal chows or terminal pungs including a '
            'pair of terminal tiles.',
        ),
        'pure_shifted_pungs': (
            '7 Pure Shifted Pungs Jieh May Pung Hand includes three pungs (or kongs) of the same suit, '
            'each shifted one up from the last.',
        ),
        'pure_straight': (
            '7 Pure Straight (Dragon) Yi Tao Long Hand includes three consecutive chows in the same '
            'suit, making a nine-tile straight.',
        ),
        'pure_triple_chow': (
            '15 Pure Triple Chow Tai Ban Gao Hand includes three chows of the same numerical sequence '
            'and in the same suit.',
        ),
        'ready_hand': (
            '7 Ready Hand Bao Ting Announcing a ready hand within the first deal before drawing or '
            'claiming any tile. After announcing ready, the player may not exchange any tiles from his '
            'hand. Doing so voids the ready hand. Going Out',
        ),
        'robbing_kong': (
            '3 Robbing the Kong Chiang Garng Winning off the tile that somebody adds to a melded pung. '
            'Going Out',
        ),
        'semi_self_sufficient': (
            '7 Semi-self Sufficient Barn Chui Ren Hand contains four melded sets and wins off a '
            'self-drawn tile. Going Out',
        ),
        'special_eye_pungs': (
            '100 Special Eye Pung Jiang Jiang Pung Hand consists of all pungs and the pair composed of '
            '2s, 5s, or 8s.',
        ),
        'special_eyes': (
            '1 Special Eyes Jiang Hand that contains a pair of 2, 5, or 8. Going Out',
        ),
        'terminal_chows': (
            '2 Two Terminal Chows Lao Shao Hand includes a 123 chow and a 789 chow in the same suit.',
        ),
        'terminal_pungs': (
            '3 Two Terminal Pungs Lao Shao Peng Hand includes a 111 pung and a 999 pung in the same '
            'suit.',
        ),
        'thirteen_orphans': (
            '100 Thirteen Orphans Shuh San Yiao Hand is composed of singles of any 12 of the 1, 9, and '
            'Honor tiles, along with a pair of the 13th.',
        ),
        'three_concealed_pungs': (
            '7 Three Concealed Pungs San An Kan Winning on three concealed pungs. A melded kong is '
            'considered a concealed triplet.',
        ),
        'three_kongs': (
            '15 Three Kongs San Garng Hand includes three kongs.',
        ),
        'three_numbers': (
            '30 Three Numbers San Shu Hand includes only tiles of any three numbers as a pung or chow. '
            'Dragon or wind tiles are counted as one number. Suit-Based',
        ),
        'three_winds': (
            '15 Three Winds San Fung Hui Hand includes three wind pungs.',
        ),
        'two_dragon_suits': (
            '15 Two Dragon Suits Liang Tao Long Hand includes three consecutive chows in the same suit, '
            'making a nine-tile straight and a chow of 456.',
        ),
        'two_kongs': (
            '3 Two Kongs Liang Garng Hand contains two kongs.',
        ),
        'two_numbers': (
            '100 Two Numbers Liang Shu Hand contains all pungs consisting of only two numbers. Wind or '
            'dragon tiles count as one number. Pung-Based',
        ),
        'two_pure_double_chows': (
            '40 Two Pure Double Chow Shuang Long Bao Ju Two pairs of identical chows.',
        ),
        'two_suits': (
            '2 One Voided Suit Chueh Yi Men Hand that uses tiles from only two of the three suits. The '
            'hand can include honors. Suit-Based',
        ),
        'wait': (
            '2 Wait Duh Ting Winning with a single wait, closed wait, or edge wait. Going Out',
        ),
    },
    'chinese-new-style': {
        'all_bonus': (
            'All Flowers and Seasons 12 faan',
        ),
        'all_chows': (
            'Chow hand',
            '(a regular hand with no Pungs or Kongs)',
            'Note: The hand may contain no traditional scoring pairs (i.e., the pair must not be of '
            "player's own Wind or Wind of the Round).",
            '1 faan',
        ),
        'all_flowers': (
            'All Flowers 2 faan',
        ),
        'all_honours': (
            'All Honors (All Symbols) Red DragonRed DragonRed Dragon White DragonWhite DragonWhite '
            'Dragon East WindEast WindEast Wind West WindWest WindWest Wind Notrh WindNotrh Wind',
            'Four Pungs or Kongs and a pair of Dragons and Winds. May all be melded.',
            '1600 % of Limit',
        ),
        'all_pungs': (
            'Pung hand',
            '(a regular hand with no Chows) (Jap. toi toi ho)',
            '3 faan',
        ),
        'all_seasons': (
            'All Seasons 2 faan',
        ),
        'all_simples': (
            'All Simples (Ch. tan yao chuu, Jap. tan yao)',
            '1 faan',
        ),
        'all_terminals': (
            'All Terminals (Heads and Tails) Character 1Character 1Character 1 Character 9Character '
            '9Character 9 Bamboo 1Bamboo 1Bamboo 1 Dot 1Dot 1Dot 1 Dot 9Dot 9',
            'Four Pungs or Kongs and a pair of 1’s or 9’s. May all be melded.',
            '1600% of Limit',
        ),
        'big_four_winds': (
            'Big Four Winds (Big Four Joys, Four Big Blessings) East WindEast WindEast Wind South '
            'WindSouth WindSouth Wind West WindWest WindWest Wind Notrh WindNotrh WindNotrh Wind Dot '
            '3Dot 3',
            'Pung or Kong of each Wind, and any pair. May all be melded.',
            '1600% of Limit',
        ),
        'big_three_dragons': (
            'Three Great Scholars (Big Three Dragons) Red DragonRed DragonRed Dragon White DragonWhite '
            'DragonWhite Dragon Green DragonGreen DragonGreen Dragon Character 4Character 5Character 6 '
            'Dot 4Dot 4',
            'Pung or Kong with all three Dragons, any Chow, Pung or Kong, and any pair. May all be '
            'melded.',
            'Note: Implies scoring for all Dragons.',
            '9 faan',
        ),
        'concealed_hand': (
            'Concealed hand',
            '(discarded last tile) (Ch., Jap. men zen chin)',
            'Note: All Kongs are allowed as concealed sets.',
            '1 faan',
        ),
        'double_kong': (
            'Kong on Kong Player goes out on the supplement tile received after the second declaration '
            'of Kong on the same turn. 6 faan',
        ),
        'dragon_pung': (
            'Pung of Dragons',
            '1 faan',
            'Kong of Dragons',
            '1 faan',
        ),
        'earthly': (
            'Earthly Hand Non-dealer goes out on dealer’s first discard. 1600% of Limit',
        ),
        'five_doors': (
            'All suits, Dragons and Winds (one set of each) (Five doors)',
            '3 faan',
        ),
        'four_concealed_pungs': (
            'Hidden Treasure (Buried Treasure) Bamboo 1Bamboo 1Bamboo 1 Character 3Character 3Character '
            '3 Character 7Character 7Character 7 Dot 3Dot 3Dot 3 Dot 8Dot 8',
            'Four concealed triplets and a pair.',
            'Note: The hand can go out on a discard (when completing the pair), and it may contain any '
            'kinds of Kongs.',
            '1600% of Limit',
        ),
        'four_in_four': (
            'Four same in four sets (Four-in-one big)',
            'The hand contains the same tile in four Chows.',
            '1 faan',
        ),
        'four_in_three': (
            'Four same in three sets (Four-in-one medium)',
            'The hand contains the same tile in two Chows and a pair.',
            '1 faan',
        ),
        'four_in_two': (
            'Four same in two sets (Four-in-one small)',
            'The hand contains the same tile in a Pung and a Chow.',
            '1 faan',
        ),
        'four_kongs': (
            'Four Kongs (Fourfold Plenty, 18 Buddhas) Bamboo 3Bamboo 3Bamboo 3Bamboo 3 Character '
            '3Character 3Character 3Character 3 Dot 5Dot 5Dot 5Dot 5 Green DragonGreen DragonGreen '
            'DragonGreen Dragon',
            'Hand containing any four Kongs, concealed or melded.',
            '1600% of Limit',
        ),
        'full_flush': (
            'One suit only (Clear hand, Ch. chin ii so, Jap. chin itsu)',
            '9 faan',
        ),
        'fully_concealed': (
            'Fully concealed hand',
            '(Ch. men zen tsuu mo, Jap. men zen tsumo)',
            'Note: No Kongs are allowed as concealed sets (instead, a concealed hand with Kongs + '
            'self-drawn winning tile pays 1 faan for Concealed hand and 1 for Self-drawn last tile). '
            'Implies Self-drawn last tile if scoring specified with the same unit. Always implies '
            'Concealed hand.',
            '3 faan',
        ),
        'half_flush': (
            'One suit and Honors (Mixed hand, Ch. hon ii so, Jap. hon itsu)',
            '3 faan',
        ),
        'heavenly': (
            'Heavenly Hand East declares ‘Out’ with the dealt hand (after supplement tiles, if any) '
            '1600% of Limit',
        ),
        'kong_replacement': (
            'Out on a supplement tile (ch., jap. rin shan kai ho) 1 faan',
        ),
        'last_of_kind': (
            'Out on 4th of its kind (3 exemplars of the tile appear as discards and melded tiles, and '
            'player goes out on the 4th), e.g. calling with B-22 B-45, when four of either B3 or B6 '
            'have already been played. 1 faan',
        ),
        'last_tile_discard': (
            'Out on the last discard (no tiles left in the Wall) (ch. ho tei rao yui, jap. hote) 1 faan',
        ),
        'last_tile_draw': (
            'Out on the last tile of the Wall (ch. hai tei rao yue, jap. haite)',
            'Note: Does not imply scores for Self-drawn last tile.',
            '1 faan',
        ),
        'little_four_winds': (
            'Little Four Winds (Little Four Joys) Bamboo 1Bamboo 2Bamboo 3 East WindEast WindEast Wind '
            'South WindSouth WindSouth Wind West WindWest WindWest Wind Notrh WindNotrh Wind',
            'Pung or Kong of three Winds, a pair of the fourth, and any other set completing the hand. '
            'May be all melded.',
            'Note: Does not imply doubles for any special winds, and does not imply One suit with '
            'Honors.',
            '12 faan',
        ),
        'little_three_dragons': (
            'Little Three Dragons (jap. sho san gen)',
            '6 faan',
        ),
        'melded_hand': (
            'Exposed hand',
            '(waiting with a single tile for the tile completing the pair)',
            'Note: Implies One-chance hand and Out on a pair.',
            '2 faan',
        ),
        'mixed_terminals': (
            'All Terminals and Honors (Ch., Jap. hon rao to)',
            'Note: Does not imply\xa0scoring for Pung hand.',
            '6 faan',
        ),
        'mixed_triple_chow': (
            'Same Chow from all suits (Three sisters, jap. san shoku do jun)',
            '3 faan',
        ),
        'nine_gates': (
            'Nine Gates (Nine United Sons, Nine Sacred Lamps of Lotus) Bamboo 1Bamboo 1Bamboo 1 Bamboo '
            '2Bamboo 3Bamboo 4Bamboo 5Bamboo 6Bamboo 7Bamboo 8Bamboo 9Bamboo 9Bamboo 9 Bamboo 3',
            'Three 1’s, a sequence of 2, 3, 4, 5, 6, 7, 8, and three 9’s, all of the same suit, and any '
            'other tile of the same suit completing the hand. The hand must be concealed (the winning '
            'tile can be a discard). No Kongs are allowed in this hand.',
            '1600% of Limit',
        ),
        'no_flowers': (
            'No Flowers or Seasons 1 faan',
        ),
        'one_chance_chow': (
            'Out on a one-chance Chow (a.k.a. Out on a one-way Chow; ch. kan chan machi, pen chan '
            'machi, jap. kanchan, penchan)',
            'e.g. 1-2 or 8-9 or n-?-n+1 (middle tile missing), as opposed to going out on a Chow that '
            'can be completed on both sides.',
            '1 faan',
        ),
        'out_on_pair': (
            'Out on a pair (ch. tan chao machi, jap. danki) 1 faan',
        ),
        'outside_hand': (
            'Terminal or Honor in each set (Jap. chan tao, chan tai yao)',
            '2 faan',
        ),
        'pure_double_chow': (
            'Two identical Chows (Sister Chows, ch. ton ryan shun, jap. ippei ko)',
            '2 faan',
        ),
        'pure_outside': (
            'in each set',
            '(Jap. jun chan)',
            '3 faan',
        ),
        'pure_straight': (
            '3 Chows of 1 suit, step 3\xa0 (Clear dragon, ch. ii chii ton kan, jap. ikkitsuu kan, '
            'itsuu)',
            '3 faan',
        ),
        'robbing_kong': (
            'Out by robbing a Kong (ch., jap. chan kan)',
            'Note: Robbing a Kong is considered going out on a claimed tile (and the player declaring '
            'the Kong is considered a discarder). Accordingly, a Kong robber can get extra points for '
            'Out on the last discard.',
            '1 faan',
        ),
        'round_wind': (
            'Pung of the Wind of the Round',
            '1 faan',
            'Kong of the Wind of the Round',
            '1 faan',
        ),
        'seat_flower': (
            'Flower of own Wind 1 faan',
        ),
        'seat_season': (
            'Season of own Wind 1 faan',
        ),
        'seat_wind': (
            'Pung of player’s Own Wind',
            '1 faan',
            'Kong of player’s Own Wind',
            '1 faan',
        ),
        'self_drawn': (
            'Self-drawn last tile (ch. tsuu mo ho, jap. tsumo, tsumo ru) 1 faan',
        ),
        'terminal_chows': (
            '123789 of the same suit (Old and young)',
            '1 faan',
        ),
        'terminal_pungs': (
            'Triplets 1 and 9 of the same suit (Old and young)',
            '1 faan',
        ),
        'thirteen_orphans': (
            'Thirteen Orphans (Thirteen Unique Wonders, Thirteen Grades of Imperial Treasure) Bamboo '
            '1Bamboo 9 Character 1Character 9 Dot 1Dot 9 White DragonGreen DragonRed DragonRed Dragon '
            'East WindSouth WindWest Wind Notrh Wind',
            'One of each Dragon and Wind, 1 and 9 of each suit and 14th tile forming a pair with any of '
            'these. The hand must be concealed (the winning tile can be a discard).',
            '1600% of Limit',
        ),
        'two_pure_double_chows': (
            'Two identical Chows twice (a.k.a. Big seven pairs, 2 Lions Hug)',
            '9 faan',
        ),
        'two_suits': (
            'Two suits only (One suit less)',
            '1 faan',
        ),
    },
    'hk-common': {
        'all_chows': (
            '| Common Hand | 平糊; ping4 wu4*2 | 1 | Every meld is a Chow |',
        ),
        'all_flowers': (
            '| All Flowers | 一台花 (jat1 toi4 faa1) | 2 | All flower bonus tiles |      |',
        ),
        'all_honours': (
            '| All Honor Tiles | 字一色; zi6 jat1 sik1 | 10 (3 fān from All in Triplets not counted) | All '
            'honor tiles |',
        ),
        'all_pungs': (
            '| All in Triplets | 對對糊; deoi3 deoi3 wu4*2 | 3 | Every meld is either a Pong or Kong |',
        ),
        'all_seasons': (
            '| All Seasons | 一台花 (jat1 toi4 faa1) | 2 | All season bonus tiles |      |',
        ),
        'all_terminals': (
            '| Orphans | 么九; jiu1 gau2 | 10 (3 fān from All in Triplets not counted) | Hand containing '
            'Pongs/Kongs of Ones and Nines only |',
        ),
        'big_four_winds': (
            '| Great Winds | 大四喜; daai6 sei3 hei2 | 13 (3 fān from All in Triplets not counted) | Melds '
            'of all 4 winds |',
        ),
        'big_three_dragons': (
            '| Great Dragons | 大三元; daai6 saam1 jyun4 | 8 | Melds of all 3 dragons |',
        ),
        'concealed_hand': (
            '| Win from Wall | 門前清 (mun4 cin4 cing1) | 1 | The whole hand was concealed until the '
            'winning tile was drawn or stolen | |',
        ),
        'double_kong': (
            '| Win by Double-Kong | 槓上槓 (gong3 soeng5gong3) | 9 (8 bonus +1 from self-pick) | Similar '
            "to 'Win by Kong', except that the tile used to make the Kong was itself an extra tile from "
            'declaring a Kong | |',
        ),
        'dragon_pung': (
            '| Red Dragon | 紅中 (hung4 zung1) | 1 | A meld of the red dragon |     |',
            '| Green Dragon | 發財 (faat3 coi4) | 1 | A meld of the green dragon |     |',
            '| White Dragon | 白板 (baak6 baan2) | 1 | A meld of the white dragon |     |',
        ),
        'earthly': (
            "| Earthly Hand | 地糊 (dei6 wu4*2) | 13 | Non-East player wins on East's first discard |",
        ),
        'four_concealed_pungs': (
            '| Self Triplets | 四暗刻; sei3 am3 hak1 坎坎糊; kaan2 kaan2 wu2 | 10 | Hand containing four '
            'concealed (unmelded) Pongs. The bonus can only be won by self-pick unless the discarded '
            'winning tile forms the pair, not any of the four melds. The bonus fan of self-pick will be '
            'awarded but not for the bonus fan of winning from the wall. |',
        ),
        'four_kongs': (
            '| All Kongs | 十八羅漢; sap6 baat3 lo4 hon3 四槓子; sei3 gong3 zi2 槓槓和; gong3 gong3 wo4 | 13 (3 '
            'fān from All in Triplets not counted) | Hand containing four Kongs |',
        ),
        'full_flush': (
            '| All One Suit | 清一色; cing1 jat1 sik1 | 7 | All tiles from one suit |',
        ),
        'half_flush': (
            '| Mixed One Suit | 混一色; wan6 jat1 sik1 | 3 | Only honor tiles and tiles from one suit |',
        ),
        'heavenly': (
            '| Heavenly Hand | 天糊 (tin1 wu4*2) | 13 | East wins with initial hand | |',
        ),
        'kong_replacement': (
            '| Win by Kong | 槓上開花 (gong3 soeng5hoi1faa1) | 2 (1 bonus +1 from self-pick) | The winning '
            'tile is from a replacement tile due to a Kong or a Bonus Tile | |',
        ),
        'last_tile': (
            '| Win by Last Catch | 海底撈月 (hoi2 dai2 lau4 jyut6) | 1 | The winning tile is either the '
            'last tile from the wall or the last discard | |',
        ),
        'little_four_winds': (
            '| Small Winds [a] | 小四喜; siu2 sei3 hei2 | 6 (6+3 fan for mixed one suit, 6+3 for all in '
            'triplets, or 6+10 for all honours) | Melds of 3 winds and a pair of the 4th wind |',
            '- ^ For Small Winds, some variations have a further restriction with the prevailing wind '
            'or the seat wind disallowed as the pair.',
        ),
        'little_three_dragons': (
            '| Small Dragons | 小三元; siu2 saam1 jyun4) | 5 | Melds of 2 dragons and a pair of the 3rd '
            'dragon |',
        ),
        'mixed_terminals': (
            '| Mixed Orphans | 混么九 (wan6 jiu1 gau2) | 1 | Only honor tiles, ones and nines |',
        ),
        'nine_gates': (
            '| Nine Gates[b] | 九子連環; gau2 zi2 lin4 waan4 | 10 | Hand in any one suit consisting of '
            '1112345678999, must be totally concealed. Note that bonuses for win from wall and all one '
            'suit will not be considered in this case. |',
        ),
        'no_flowers': (
            '| No Flowers or Seasons | 无花 (mou4 faa1) | 1 | No flower or season bonus tiles | |',
        ),
        'robbing_kong': (
            '| Robbing Kong | 搶槓 (coeng2 gong3) | 1 | The winning tile is obtained from someone calling '
            'a Kong; a 12-piece penalty will be imposed on the player being robbed | |',
        ),
        'round_wind': (
            '| Prevailing Wind | 圈風 (hyun1 fung1) | 1 | A meld of the prevailing wind |    /    /    /  '
            '   |',
            "- A double wind, where a certain wind is both the winner's seat wind and the prevailing "
            'wind, counts as 2 fan.',
        ),
        'seat_flower': (
            "| Flower of own Wind | 正花 (zing3 faa1) | 1 | A flower of the winner's seat wind |  /  /  / "
            '  |',
        ),
        'seat_season': (
            "| Season of own Wind | 正花 (zing3 faa1) | 1 | A season of the winner's seat wind |  /  /  / "
            '  |',
        ),
        'seat_wind': (
            "| Seat Wind | 門風 (mun4 fung1) | 1 | A meld of the winner's seat wind |    /    /    /     "
            '|',
            "- A double wind, where a certain wind is both the winner's seat wind and the prevailing "
            'wind, counts as 2 fan.',
        ),
        'self_drawn': (
            '| Self-Pick | 自摸 (zi6 mo1) | 1 | The winning tile is from the wall | |',
        ),
        'seven_pairs': (
            '| Seven Pairs (played by some variants)[1] | 七對子; cat1 deoi3 zi2 | 4 | Hand consists of '
            'seven pairs. Can stack with All Honor Tiles, Mixed One Suit and All One Suit; Bonus from '
            'Wall is not awarded. In some variants, Kongs are not permitted in this hand. |',
        ),
        'thirteen_orphans': (
            '| Thirteen Orphans | 十三么; sap6 saam1 jiu1 | 13 | One of each one, nine, wind, and dragon, '
            'and a 14th tile (any other terminal or honor tile) |',
        ),
    },
    'hk-guide': {
        'all_bonus': (
            '8 Flowers (八仙過海)',
            '8',
            'When you draw 8 flowers, you have the option to win immediately',
        ),
        'all_chows': (
            'All Sequences',
            '(平糊)',
            '1',
            'Only sequences and a pair',
        ),
        'all_flowers': (
            'Set of Flowers (一台花)',
            '2',
            'Have 4 flowers of the same series',
        ),
        'all_honours': (
            'All Honors (字一色)',
            '10',
            'Have only honor tiles',
        ),
        'all_pungs': (
            'All Triplets (碰碰糊)',
            '3',
            'Hand only contains triplets',
        ),
        'all_seasons': (
            'Set of Flowers (一台花)',
            '2',
            'Have 4 flowers of the same series',
        ),
        'all_terminals': (
            'All Terminals (清老頭)',
            'Limit',
            'Hand only contains terminals (1’s and 9’s)',
        ),
        'big_four_winds': (
            'Big Four Winds (大四喜)',
            'Limit',
            'Have triplets of all 4 winds',
        ),
        'big_three_dragons': (
            'Big Three Dragons (大三元)',
            '8',
            'Have triplets of all 3 dragons (do not count points for individual dragon triplets)',
        ),
        'concealed_hand': (
            'Concealed Hand (門前清)',
            '1',
            'Win without calling chow, pong, or kong (your entire hand is concealed)',
        ),
        'double_kong': (
            'After Multiple Kongs',
            '(槓上槓自摸)',
            '8',
            'Call kong multiple times in a row and win with the replacement tile',
        ),
        'dragon_pung': (
            'Dragon Triplet (箭刻)',
            '1',
            'Have a triplet of dragon tiles, like',
        ),
        'earthly': (
            'Blessing of Earth (地糊)',
            'Limit',
            'Win on the dealer’s first discard',
        ),
        'four_concealed_pungs': (
            'Four Concealed Triplets',
            '(坎坎胡)',
            '8',
            'Hand only contains triplets, and all of them are self drawn',
        ),
        'four_identical_chows': (
            'Four Identical Sequences',
            '(四般高)',
            'Limit',
            'Have 4 of the same sequence in the same suit',
        ),
        'four_kongs': (
            'Four Kongs (十八羅漢)',
            'Limit',
            'Hand contains 4 kongs',
        ),
        'full_flush': (
            'Pure Flush (清一色)',
            '7',
            'Only tiles of a single suit',
        ),
        'half_flush': (
            'Mixed Flush (混一色)',
            '3',
            'Only tiles of a single suit plus honor tiles',
        ),
        'heavenly': (
            'Blessing of Heaven (天糊)',
            'Limit',
            'Win on the first turn as the dealer',
        ),
        'kong_replacement': (
            'After a Kong (槓上自摸)',
            '1',
            'Win with the replacement tile after calling kong',
        ),
        'last_tile': (
            'Win on Final Tile (海底撈月)',
            '1',
            'Win by drawing the final tile in the wall, or when another player discards the final tile',
        ),
        'little_four_winds': (
            'Small Four Winds (小四喜)',
            '6',
            'Have triplets of 3 winds and a pair of the 4th (does not stack with half flush, do not '
            'count points for individual wind triplets)',
        ),
        'little_three_dragons': (
            'Small Three Dragons (小三元)',
            '5',
            'Have 2 dragon triplets and a pair of the third (do not count points for individual dragon '
            'triplets)',
        ),
        'man': (
            'Blessing of Man (人糊)',
            'Limit',
            'Win on the first turn as non-dealer',
        ),
        'mixed_terminals': (
            'Mixed Terminals (混老头)',
            '4',
            'Hand only contains terminals (1’s and 9’s) and honors.',
        ),
        'mixed_triple_chow': (
            'Mixed Triple Sequence',
            '(三相逢)',
            '3',
            'Have the same numbered sequence in each suit, for example 567 in characters, 567 in dots, '
            'and 567 in bamboo.',
        ),
        'nine_gates': (
            'Nine Gates',
            '(九子連環)',
            'Limit',
            'Have the concealed pattern 1112345678999, which is able to win on any tile from 1 to 9',
        ),
        'no_flowers': (
            'No Flowers (无花)',
            '1',
            'Have no flowers',
        ),
        'pure_double_chow': (
            'Two Identical Sequences',
            '(一般高)',
            '1',
            'Have 2 of the same sequence in the same suit, for example 123,123 in dots',
        ),
        'pure_straight': (
            'Pure Straight',
            '(一條龍)',
            '3',
            'Have the sequences 123, 456, 789 in the same suit',
        ),
        'pure_triple_chow': (
            'Three Identical Sequences',
            '(三般高)',
            '3',
            'Have 3 of the same sequence in the same suit',
        ),
        'robbing_kong': (
            'Robbing a Kong (搶槓)',
            '1',
            'When a player calls kong to add a tile to an open triplet, you can win off of that tile '
            '(for example, if they called pong to make an open triplet of 222, then draw a fourth copy '
            'of 2 and call kong)',
        ),
        'round_wind': (
            'Round Wind (圈風刻)',
            '1',
            'Have a triplet of the wind matching the round.',
        ),
        'seat_flower': (
            'Seat Flower (正花)',
            '1',
            'Have a flower matching your seat (east = 1, south = 2, west = 3, north = 4)',
        ),
        'seat_season': (
            'Seat Flower (正花)',
            '1',
            'Have a flower matching your seat (east = 1, south = 2, west = 3, north = 4)',
        ),
        'seat_wind': (
            'Seat Wind (門風刻)',
            '1',
            'Have a triplet of the wind matching your set.',
        ),
        'self_drawn': (
            'Self Draw (自摸)',
            '1',
            'Draw the winning tile yourself',
        ),
        'seven_bonus': (
            '7 Flowers (花糊)',
            '3',
            'When you draw 7 flowers, you have the option to win immediately',
        ),
        'seven_pairs': (
            'Seven Pairs (七對子)',
            '3',
            'Hand contains 7 pairs',
        ),
        'thirteen_orphans': (
            'Thirteen Orphans',
            '(十三幺)',
            'Limit',
            'Have 1 of each terminal and honor, and a pair of 1 of them',
        ),
        'three_kongs': (
            'Three Kongs (三槓子)',
            '3',
            'Hand contains 3 kongs',
        ),
    },
}

RULES: dict[str, dict[str, tuple[str, ...]]] = {
    'hk-old-style': {
        'min_fan': (
            'Decide on a minimum number of fan needed before calling mahjong (3 fan is common). When '
            'declaring a win on a discard, the player must display his hand first before adding the '
            'discarded tile. In case of a self-drawn win, the drawn tile is displayed first followed by '
            'his hand.',
        ),
        'payment': (
            '**Win by a discarded tile:** Discarder pays winner double score and the other players pay '
            "normal the winner's score.",
            "**Win by self-drawn tile:** All player's pay double value of the winner's hand.",
        ),
        'table': (
            'Fan · Points · By discard · Self drawn',
            '0 · 1 · $1 + 1 + 2 = 4$ · n/a',
            '1 · 2 · $2 + 2 + 4 = 8$ · $4 + 4 + 4 = 12$',
            '2 · 4 · $4 + 4 + 8 = 16$ · $8 + 8 + 8 = 24$',
            '3 · 8 · $8 + 8 + 16 = 32$ · $16 + 16 + 16 = 48$',
            '4, 5, 6 · 16 · $16 + 16 + 32 = 64$ · $32 + 32 + 32 = 96$',
            '7, 8, 9 · 32 · $32 + 32 + 64 = 128$ · $64 + 64 + 64 = 192$',
            '10+ · 64 · $64 + 64 + 128 = 256$ · $128 + 128 + 128 = 384$',
        ),
    },
    'hk-new-style': {
        'min_fan': (
            'The hand must contain 14 tiles and be composed of four sets and a pair (with the exception '
            'of special limit hands). If two players call mahjong for the same discard, the player '
            'sitting closest to the discarder in turn order is given the tile. An exception to this is '
            'when a player completes an open Thirteen Orphans hand the turn order does not matter. A '
            'minimum of 5 fan is needed before calling mahjong. When declaring a win on a discard the '
            'player must display his first and before adding the discarded tile. In case of a '
            'self-drawn win, the drawn tile is displayed first followed by his hand.',
        ),
        'payment': (
            '• Win by a discarded tile: Discarder pays winner full score.',
            '• Win by a discarded tile: Discarder pays winner double the full score.',
            '• Win by a discarded tile: Discarder pays winner full score and the other players half the '
            "winner's score.",
            "• Win by self-drawn tile: All player's pay the full value of the winner's hand.",
        ),
        'table': (
            'If the winner wins by self-draw, then all other players pay him however much his hand is '
            'worth. For example, if the winner has a hand worth 3 fan (16 points), then the three other '
            'players will pay him 16 points.',
        ),
    },
    'chinese-new-style': {
        'min_fan': (
            'Note: If Flowers and Seasons are used and the rules apply a minimum point requirement on a '
            'winning hand, it is common that the faans for these bonus tiles are not included in the '
            'minimum point count but are added to the final score only if the hand meets the minimum '
            'point requirement without the extra faans earned by the bonus tiles.',
        ),
        'payment': (
            'The modern Chinese rules allow payments to the winner only: there are no payments between '
            'the losers. Accordingly, only the winner must display his hand after a deal is over.',
        ),
        'table': (
            'Figure 3. Settling table used in Chinese New Style Mah Jong with limit points set to 64 '
            'points. The first laak (the Limit) is paid for hands worth 6 faans, the second laak (the '
            'Limit doubled once) for hands worth 9\xa0 faans, the third laak (the Limit doubled twice) '
            'for hands worth 12 faans, the fourth laak (the Limit doubled three times) for hands worth '
            '15\xa0 faans and the fifth laak (the Limit doubled four times) for hands worth 20 faans or '
            'more. Notice that individual final scores are specified at increments of 10 points for '
            'intermediate faans. The table is called "6-9-12 System". Another popular variation in the '
            'New Style is the "5-8-11 System".',
            'In games where the final score is specified using a settling table, the limit is used as a '
            'unit to specify the final scores. In the rules described here the Limit is 64 points, but '
            'the actual highest final score is specified by a settling table according to which a hand '
            'worth 20 faans or more pays 1,024 points (i.e., 5 laaks, meaning the Limit doubled four '
            'times, or 1600% of the Limit).',
        ),
    },
    'hk-common': {
        'min_fan': (
            'The largest group of criteria for scoring faan concern the contents of the winning hand. '
            'Typically, a hand that is more improbable will score higher than one that is more common, '
            'but this may not be the case. In variations with scoring minimums, it is generally '
            'accepted that, barring improbable high-scoring hands (such as the Heavenly Hand described '
            'below, even if the winning hand is otherwise scoreless), at least one point must be from '
            'this set of criteria. It is not uncommon for players to define minimum faan requirements '
            'for declaring a winning hand (typically 1 or 2), and at times a maximum fan cap or ceiling '
            '(for example at 7 or 8 faan). Also note that generally speaking in Hong Kong mahjong, 13 '
            'faan is considered the absolute limit for faan.',
            'The tables following list common criteria for faan based on the contents of the hand.',
            'Other scoring criteria are based on the winning condition - how the winner won.',
            '- It is possible to obtain the maximum fan (13) only from winning condition criteria. For '
            'example, a player draws the second last tile from the wall, declares a Kong and wins on the '
            'replacement tile.',
            'Some criteria for faan are based on "bonus tiles" - the flowers and the seasons. See the '
            'following table:',
        ),
        'payment': (
            '- If the winner wins from the wall the base points is doubled.',
            '- If the hand was won by discard, the discarder doubles the number he owes the winner',
            '- If the winner is east all losers double the basepoints',
            '- If east player is a losing player he pays double the points to the winner.',
            'If two of these criteria apply to any player then the player must double and then redouble '
            'the points owed to the winner.',
        ),
        'table': (
            'Traditional faan point-base point table',
            'This table is similar to simplified but allows payments for hands of less than 3 faan. If '
            'a player has 3 faan then his hand is worth eight base points. A winning hand with 9 faan '
            'is worth 32 base points. Losing players must give the winning player the value of these '
            'base points. Individual players must double the number of base-points owed for the '
            'following:',
        ),
    },
    'hk-guide': {
        'min_fan': (
            'It is common to set a requirement of 3 fan to win a hand, but it is recommended to not use '
            'this requirement when playing with beginners.',
        ),
        'payment': (
            'When winning by self draw, all players pay your hands value. When winning by a player’s '
            'discard, the player who discarded that tile pays 2x your hand’s value, and the other '
            'players don’t pay anything.',
        ),
        'table': (
            'This is not a guide for how to play HK mahjong, just a scoring guide. To score a hand, add '
            'up the number of “fan” from the list of hands below, then refer to the table on the right. '
            'Each fan doubles the points up until 4 fan, then after that every 2 fan doubles the '
            'points. The maximum points is often set to 10 fan (128 points), but some rules allow going '
            'up to 13 (384 points).',
        ),
    },
}
