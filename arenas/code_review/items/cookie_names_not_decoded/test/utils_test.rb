# frozen_string_literal: true

require 'minitest/autorun'
require_relative '../lib/rack/utils'

class CookieParsingTest < Minitest::Test
  def parse(header)
    Rack::Utils.parse_cookies_header(header)
  end

  def test_parses_cookies
    assert_equal({ "zoo" => "m" }, parse("zoo=m"))
    assert_equal({ "foo" => "%" }, parse("foo=%"))
    assert_equal({ "foo" => "bar" }, parse("foo=bar;foo=car"))
    assert_equal({ "foo" => "bar", "quux" => "h&m" }, parse("foo=bar;quux=h&m"))
    assert_equal({ "foo" => "bar", "quux" => "h&m" }, parse("foo=bar; quux=h&m"))
    assert_equal({ "name" => "a b" }, parse("name=a%20b"))
    assert_equal({ "%66oo" => "baz", "foo" => "bar" }, parse("%66oo=baz;foo=bar"))
  end

  def test_missing_header
    assert_equal({}, parse(nil))
  end
end
