"""The three charsets, as a caller's terminal receives and sends them."""

from __future__ import annotations

import itertools
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ansi.charset import CHARSETS, CP437_GLYPHS, InputDecoder, decode, encode

# Bytes a terminal acts on: a glyph must never be sent as one of them.
CONTROL_BYTES = {0x00, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x18, 0x1A, 0x1B}


def test_cp437_suits_are_the_bbs_bytes() -> None:
    assert encode("♥", "cp437") == b"\x03"
    assert encode("♥♦♣♠", "cp437") == bytes([3, 4, 5, 6])


def test_cp437_box_drawing_and_shades() -> None:
    assert encode("┌─┐│└┘├┤┬┴┼", "cp437") == bytes.fromhex("dac4bfb3c0d9c3b4c2c1c5")
    assert encode("╔═╗║╚╝", "cp437") == bytes.fromhex("c9cdbbbac8bc")
    assert encode("░▒▓█▀▄", "cp437") == bytes.fromhex("b0b1b2dbdfdc")


def test_cp437_keeps_accented_letters() -> None:
    assert encode("é", "cp437") == b"\x82"
    assert encode("Zoë", "cp437") == b"Zo\x89"
    assert encode("e\u0301", "cp437") == b"\x82"  # decomposed é is still one byte


def test_cp437_fallbacks() -> None:
    assert encode("a—b–c", "cp437") == b"a-b-c"
    assert encode("‘q’ “qq”", "cp437") == b"'q' \"qq\""
    assert encode("☃", "cp437") == b"?"
    assert encode("╭╮╰╯━┃", "cp437") == encode("┌┐└┘─│", "cp437")
    assert encode("♡♤", "cp437") == b"\x03\x06"


@pytest.mark.parametrize("charset", CHARSETS)
def test_control_characters_pass_through(charset: str) -> None:
    sequence = "\x1b[2J\x1b[1;1H\r\n\x08\x07\x00\t"
    assert encode(sequence, charset) == sequence.encode("ascii")


@pytest.mark.parametrize("charset", ["latin-1", "UTF8", ""])
def test_unknown_charset_is_refused(charset: str) -> None:
    with pytest.raises(ValueError, match="cp437"):
        encode("x", charset)
    with pytest.raises(ValueError, match="cp437"):
        InputDecoder(charset)


def test_ascii_stand_ins() -> None:
    assert encode("7♥ 8♦ 9♣ T♠", "ascii") == b"7H 8D 9C TS"
    assert encode("┌─┐│└┘╔═╗║┼", "ascii") == b"+-+|+++-+|+"
    assert encode("░▒▓█▀▄", "ascii") == b"######"
    assert encode("Zoë Ångström", "ascii") == b"Zoe Angstrom"
    assert encode("雪", "ascii") == b"?"


@pytest.mark.slow
@settings(max_examples=300)
@given(text=st.text(), charset=st.sampled_from(CHARSETS))
def test_encode_never_raises(text: str, charset: str) -> None:
    data = encode(text, charset)
    assert isinstance(data, bytes)
    if charset == "ascii":
        assert data.isascii()


@settings(max_examples=200)
@given(char=st.characters(min_codepoint=0x80), charset=st.sampled_from(("cp437", "ascii")))
def test_a_character_is_at_most_one_byte_and_never_a_control(char: str, charset: str) -> None:
    data = encode(char, charset)
    assert len(data) <= 1
    assert not set(data) & CONTROL_BYTES


@settings(max_examples=200)
@given(text=st.text(st.characters(blacklist_categories=("Mn", "Me", "Cf", "Cs", "Cc"))))
@example(text="\u0958")  # NFC splits it into a letter and a combining mark
@example(text="\U00016ff0")  # a spacing mark (one column), though it has a combining class
def test_cp437_text_keeps_its_width(text: str) -> None:
    text = unicodedata.normalize("NFC", text)
    # Marks that don't space (Mn, Me) and format characters take no column; all else one.
    columns = sum(1 for char in text if unicodedata.category(char) not in ("Mn", "Me", "Cf"))
    assert len(encode(text, "cp437")) == columns
    assert len(encode(text, "ascii")) == columns


def test_every_high_cp437_byte_round_trips() -> None:
    for byte in range(0x80, 0x100):
        glyph = decode(bytes([byte]), "cp437")
        assert glyph == CP437_GLYPHS[byte]
        assert encode(glyph, "cp437") == bytes([byte])


def test_low_glyphs_read_back_as_a_cp437_screen_shows_them() -> None:
    drawn = "☺☻♥♦♣♠►◄↕‼¶§▬↨↓∟↔▲▼⌂"
    assert decode(encode(drawn, "cp437"), "cp437", glyphs=True) == drawn


def test_decode_keeps_what_a_line_editor_needs() -> None:
    assert decode(b"ab\x08c\x7f\r\n\r\x00", "cp437") == "ab\x08c\x7f\r\n\r\x00"
    assert decode(b"\x1b[24;80R", "cp437") == "\x1b[24;80R"
    assert decode(b"caf\x82", "cp437") == "café"


def test_decode_utf8_replaces_bad_bytes() -> None:
    assert decode("café ♥".encode(), "utf-8") == "café ♥"
    assert decode(b"bad \xff\xfe end", "utf-8") == "bad \ufffd\ufffd end"


def test_decode_ascii_drops_high_bytes() -> None:
    assert decode("café\r".encode(), "ascii") == "caf\r"


@settings(max_examples=200)
@given(data=st.binary(), charset=st.sampled_from(CHARSETS), glyphs=st.booleans())
def test_decode_never_raises(data: bytes, charset: str, glyphs: bool) -> None:
    assert isinstance(decode(data, charset, glyphs=glyphs), str)


def test_input_decoder_joins_a_character_split_across_packets() -> None:
    decoder = InputDecoder("utf-8")
    assert decoder.feed(b"n\xc3") == "n"
    assert decoder.feed(b"\xa9e\r") == "\u00e9e\r"
    assert decoder.feed(b"\xf0\x9f") == ""
    assert decoder.feed(b"\x82") == ""
    assert decoder.feed(b"\xa1!") == "\U0001f0a1!"


def test_input_decoder_flushes_an_unfinished_character() -> None:
    decoder = InputDecoder("utf-8")
    assert decoder.feed(b"ok\xe2\x99") == "ok"
    assert decoder.flush() == "\ufffd"


@settings(max_examples=100)
@given(text=st.text(), cuts=st.lists(st.integers(min_value=0), max_size=6))
def test_input_decoder_is_indifferent_to_packet_boundaries(text: str, cuts: list[int]) -> None:
    data = text.encode("utf-8", errors="replace")
    bounds = [0, *sorted({cut % (len(data) + 1) for cut in cuts}), len(data)]
    decoder = InputDecoder("utf-8")
    pieces = [data[start:end] for start, end in itertools.pairwise(bounds)]
    received = "".join(decoder.feed(piece) for piece in pieces) + decoder.flush()
    assert received == decode(data, "utf-8")


@pytest.mark.parametrize("charset", ["cp437", "ascii"])
def test_input_decoder_for_single_byte_charsets(charset: str) -> None:
    decoder = InputDecoder(charset)
    assert decoder.charset == charset
    assert decoder.feed(b"s3\r") == "s3\r"
    assert decoder.flush() == ""
