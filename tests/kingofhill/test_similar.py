"""Grouping help (``kingofhill.rules.similar``): real club answers that must be offered for
merging, with the reason shown to the host, and answers that must never be; then the
properties every pair keeps."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kingofhill.rules.similar import (
    REASONS,
    SAME,
    Suggestion,
    distance,
    same_answer,
    suggestions,
)
from tests.properties import examples

# Pairs a host must be offered to merge, with the reason the console shows.
MERGE = [
    # spelling
    ("Ломоносов", "Ломоносав", "spelling"),
    ("Шекспир", "Шекспер", "spelling"),
    ("Эйнштейн", "Энштейн", "spelling"),
    ("Менделеев", "Менделев", "spelling"),
    ("Чайковский", "Чайковкий", "spelling"),
    ("Достоевский", "Дастаевский", "spelling"),
    ("Бетховен", "Бетховин", "spelling"),
    ("Магеллан", "Магелан", "spelling"),
    ("Коперник", "Каперник", "spelling"),
    ("Архимед", "Архемед", "spelling"),
    ("Лобачевский", "Лобочевский", "spelling"),
    ("Кутузов", "Кутузав", "spelling"),
    ("Суворов", "Суваров", "spelling"),
    ("Клеопатра", "Клеопатора", "spelling"),
    ("Циолковский", "Цилковский", "spelling"),
    ("Тутанхамон", "Тутанхамен", "spelling"),
    ("Бородино", "Бародино", "spelling"),
    ("Стоунхендж", "Стонхендж", "spelling"),
    ("Гильотина", "Гилотина", "spelling"),
    ("Прометей", "Праметей", "spelling"),
    ("Shakespeare", "Shakespear", "spelling"),
    ("Einstein", "Einstien", "spelling"),
    ("Mississippi", "Missisippi", "spelling"),
    ("Michelangelo", "Michaelangelo", "spelling"),
    ("Copernicus", "Copernicos", "spelling"),
    ("Tchaikovsky", "Tchaikovksy", "spelling"),
    ("Beethoven", "Bethoven", "spelling"),
    ("Hemingway", "Hemmingway", "spelling"),
    ("Leonardo da Vinci", "Leonardo da Vinchi", "spelling"),
    ("Жан-Жак Руссо", "Жан Жак Русо", "spelling"),
    ("Война 1812 года", "Война 1812 гда", "spelling"),
    # ё/е, punctuation, case, quotes, hyphens
    ("Ёжик в тумане", "Ежик в тумане", "yo"),
    ("Пётр Первый", "Петр Первый", "yo"),
    ("Королёв", "королев", "yo"),
    ("«Мастер и Маргарита»", "Мастер и Маргарита", "punctuation"),
    ("Нью-Йорк", "Нью Йорк", "punctuation"),
    ("Нью-Йорк", "НьюЙорк", "punctuation"),
    ("ПУШКИН", "пушкин", "punctuation"),
    ("Rock'n'roll", "rock n roll", "punctuation"),
    ("\"Titanic\"", "titanic", "punctuation"),
    ("Coca-Cola", "Coca Cola", "punctuation"),
    ("1812", "1812!", "punctuation"),
    ("Ёлка!", "ёлка", "punctuation"),
    # word order
    ("Лев Толстой", "Толстой Лев", "word_order"),
    ("Ломоносов Михаил", "Михаил Ломоносов", "word_order"),
    ("Иоганн Себастьян Бах", "Бах Иоганн Себастьян", "word_order"),
    ("Charles Darwin", "Darwin Charles", "word_order"),
    ("Агата Кристи", "Кристи Агата", "word_order"),
    # initials
    ("М. Ломоносов", "Михаил Ломоносов", "initials"),
    ("Ломоносов М.В.", "Михаил Ломоносов", "initials"),
    ("М. Ломоносов", "Ломоносов", "initials"),
    ("А. С. Пушкин", "Александр Пушкин", "initials"),
    ("А.С. Пушкин", "Александр Сергеевич Пушкин", "initials"),
    ("Пушкин А.С.", "Пушкин", "initials"),
    ("Л. Н. Толстой", "Лев Николаевич Толстой", "initials"),
    ("J. S. Bach", "Johann Sebastian Bach", "initials"),
    ("C. Darwin", "Charles Darwin", "initials"),
    ("J.R.R. Tolkien", "Tolkien", "initials"),
    ("A. Christie", "Agatha Christie", "initials"),
    ("Ф. М. Достоевский", "Фёдор Достоевский", "initials"),
    # transliteration
    ("Lomonosov", "Ломоносов", "transliteration"),
    ("Tolstoy", "Толстой", "transliteration"),
    ("Tolstoi", "Толстой", "transliteration"),
    ("Shakespeare", "Шекспир", "transliteration"),
    ("Moscow", "Москва", "transliteration"),
    ("Tchaikovsky", "Чайковский", "transliteration"),
    ("Dostoevsky", "Достоевский", "transliteration"),
    ("Dostoyevsky", "Достоевский", "transliteration"),
    ("Chekhov", "Чехов", "transliteration"),
    ("Gagarin", "Гагарин", "transliteration"),
    ("Mendeleev", "Менделеев", "transliteration"),
    ("Einstein", "Эйнштейн", "transliteration"),
    ("Mozart", "Моцарт", "transliteration"),
    ("Washington", "Вашингтон", "transliteration"),
    ("Paris", "Париж", "transliteration"),
    ("London", "Лондон", "transliteration"),
    ("Leo Tolstoy", "Лев Толстой", "transliteration"),
    ("M. Lomonosov", "Михаил Ломоносов", "transliteration"),
    ("Sputnik", "Спутник", "transliteration"),
    ("Matryoshka", "Матрёшка", "transliteration"),
]

# Pairs that must never be offered: other numbers, other words, other people.
APART = [
    # numbers and dates
    ("1812", "1821"),
    ("1941", "1945"),
    ("1917", "1918"),
    ("100", "1000"),
    ("7", "8"),
    ("3,14", "314"),
    ("1 000 000", "1000000"),
    ("Пётр I", "Пётр II"),
    ("Екатерина I", "Екатерина II"),
    ("Henry V", "Henry VI"),
    ("Louis XIV", "Louis XVI"),
    ("Война 1812 года", "Война 1813 года"),
    ("Аполлон-11", "Аполлон-13"),
    ("Apollo 11", "Apollo 13"),
    ("20 лет", "200 лет"),
    ("Пётр", "Пётр I"),
    # short words
    ("Рим", "Мир"),
    ("кот", "кит"),
    ("Моне", "Мане"),
    ("Monet", "Manet"),
    ("Иран", "Ирак"),
    ("Iran", "Iraq"),
    ("Бах", "Бах Бах Бах Бах"),
    ("Марс", "Мерс"),
    ("Уран", "Иран"),
    ("Мали", "Бали"),
    ("Mali", "Bali"),
    ("Кант", "Конт"),
    ("Лима", "Лама"),
    ("Оман", "Омск"),
    ("Сена", "Сона"),
    ("Бизе", "Визе"),
    ("Ной", "Зной"),
    ("Ра", "Ро"),
    # one letter apart but another word
    ("Гегель", "Гоголь"),
    ("Гамбия", "Замбия"),
    ("Gambia", "Zambia"),
    ("Ирландия", "Исландия"),
    ("Ireland", "Iceland"),
    ("Австрия", "Австралия"),
    ("Austria", "Australia"),
    ("Словакия", "Словения"),
    ("Slovakia", "Slovenia"),
    ("Гвинея", "Гвиана"),
    ("Нигер", "Нигерия"),
    ("Niger", "Nigeria"),
    ("Мария", "Марина"),
    ("Сталин", "Сталинград"),
    ("Швеция", "Швейцария"),
    ("Sweden", "Switzerland"),
    ("Пушкин", "Путин"),
    ("Колумб", "Колумбия"),
    ("Columbus", "Columbia"),
    ("Гайдн", "Гендель"),
    ("Рубенс", "Рембрандт"),
    ("Нептун", "Плутон"),
    ("Венера", "Вена"),
    ("Мексика", "Мехико"),
    ("Бразилия", "Боливия"),
    ("Пруссия", "Россия"),
    ("Людовик", "Людмила"),
    ("Мичиган", "Мичурин"),
    ("Tolkien", "Tolstoy"),
    ("Bach", "Bacon"),
    # names: other people, other initials
    ("А. Толстой", "Лев Толстой"),
    ("Алексей Толстой", "Лев Толстой"),
    ("Михаил Ломоносов", "Ломоносов"),
    ("В. Набоков", "Владимир Ленин"),
    ("Charles Darwin", "Erasmus Darwin"),
    ("J. Bach", "Carl Bach"),
    ("Пушкин", "Лермонтов"),
    ("Толстой", "Достоевский"),
    ("Антон Чехов", "Михаил Чехов"),
    ("Ньютон", "Лейбниц"),
    ("Лев Толстой", "Лев Яшин"),
    ("Иван Грозный", "Иван Калита"),
    # other words entirely
    ("Москва", "Париж"),
    ("Paris", "Прага"),
    ("Berlin", "Берн"),
    ("Shakespeare", "Шекли"),
    ("Moscow", "Мюнхен"),
    ("Lomonosov", "Ломбардия"),
    ("Egypt", "Египетская ночь"),
    ("Нил", "Nile river delta"),
    ("да", "нет"),
    ("yes", "no"),
    ("Ленин", "Lennon"),
]


def test_the_tables_hold_sixty_pairs_each_in_russian_and_english():
    assert len(MERGE) >= 60 and len(APART) >= 60
    for table in (MERGE, APART):
        texts = " ".join(a + b for a, b, *_ in table)
        assert any("а" <= c <= "я" for c in texts) and any("a" <= c <= "z" for c in texts)


@pytest.mark.parametrize(("a", "b", "reason"), MERGE, ids=[f"{a}~{b}" for a, b, _ in MERGE])
def test_the_same_answer_written_differently_is_offered_with_its_reason(a, b, reason):
    assert same_answer(a, b) == reason
    assert same_answer(b, a) == reason


@pytest.mark.parametrize(("a", "b"), APART, ids=[f"{a}≠{b}" for a, b in APART])
def test_different_answers_are_never_offered(a, b):
    assert same_answer(a, b) is None
    assert same_answer(b, a) is None


def test_a_vowel_misheard_costs_less_than_a_consonant_swapped():
    assert distance("ломоносов", "ломоносав") < distance("ирландия", "исландия")


def test_the_four_lomonosovs_are_one_suggestion_around_the_first_group():
    found = suggestions(["ломоносов", "ломоносав", "м ломоносов", "lomonosov", "пушкин"])
    assert found == [Suggestion(keys=("ломоносов", "ломоносав", "м ломоносов", "lomonosov"),
                                reasons=("spelling", "initials", "transliteration"))]


def test_a_group_joins_through_one_already_in_the_suggestion():
    # «М. Ломоносов» is not «Ломоносав» by any one rule, but it is «Ломоносов».
    found = suggestions(["ломоносав", "м ломоносов", "пушкин", "ломоносов"])
    assert found == [Suggestion(keys=("ломоносав", "ломоносов", "м ломоносов"),
                                reasons=("spelling", "initials"))]


def test_a_merged_group_is_compared_by_each_of_its_texts():
    forms = {"ломоносав": ["ломоносав", "ломоносов"]}
    assert suggestions(["ломоносав", "м ломоносов"], forms=forms) == [
        Suggestion(keys=("ломоносав", "м ломоносов"), reasons=("initials",))]
    assert suggestions(["ломоносав", "м ломоносов"]) == []


def test_a_dismissed_pair_is_not_offered_again_but_the_rest_are():
    found = suggestions(["ломоносов", "ломоносав", "lomonosov"],
                        dismissed=[("ломоносав", "ломоносов")])
    assert found == [Suggestion(keys=("ломоносов", "lomonosov"), reasons=("transliteration",))]


def test_groups_judged_differently_are_not_offered():
    verdicts = {"ломоносов": True, "ломоносав": False, "lomonosov": None}
    found = suggestions(["ломоносов", "ломоносав", "lomonosov"], verdicts=verdicts)
    assert found == [Suggestion(keys=("ломоносов", "lomonosov"), reasons=("transliteration",))]


def test_no_suggestion_among_answers_that_differ():
    assert suggestions(["ответ 1", "ответ 2", "ответ 12", "рим", "мир"]) == []


texts = st.text(alphabet=st.sampled_from("абвгдеёжзиклмнопрстуфхцчшщыьэюя"
                                         "abcdefghijklmnopqrstuvwxyz .-«»'0123456789IVX"),
                max_size=20)
PAIRS = settings(max_examples=examples(300), deadline=None)


@PAIRS
@given(texts, texts)
def test_the_relation_is_symmetric(a, b):
    assert same_answer(a, b) == same_answer(b, a)


@PAIRS
@given(texts)
def test_an_answer_is_the_same_as_itself(a):
    assert same_answer(a, a) == SAME


@PAIRS
@given(st.integers(min_value=0, max_value=10**9), st.integers(min_value=0, max_value=10**9),
       st.sampled_from(["", " год", "-й", " лет", " km"]))
def test_two_different_numbers_never_merge(x, y, words):
    if x != y:
        assert same_answer(f"{x}{words}", f"{y}{words}") is None


@PAIRS
@given(texts, texts)
def test_a_reason_is_always_one_the_console_can_name(a, b):
    assert same_answer(a, b) in (*REASONS, None)
