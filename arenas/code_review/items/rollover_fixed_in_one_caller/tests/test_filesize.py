from src.filesize import naturalrate, naturalsize


def test_naturalsize():
    assert naturalsize(300) == "300 Bytes"
    assert naturalsize(3000000) == "3.0 MB"
    assert naturalsize(3000, binary=True) == "2.9 KiB"
    assert naturalsize(-4096, binary=True) == "-4.0 KiB"


def test_naturalrate():
    assert naturalrate(300) == "300 B/s"
    assert naturalrate(3000000) == "3.0 MB/s"


def test_naturalsize_rollover():
    assert naturalsize(999999) == "1.0 MB"
    assert naturalsize(999999999) == "1.0 GB"
    assert naturalsize(1024**2 - 1, binary=True) == "1.0 MiB"
    assert naturalsize(-999999) == "-1.0 MB"
    assert naturalsize(999999 * 10**12) == "1000.0 PB"
