# frozen_string_literal: true

require 'minitest/autorun'
require_relative '../lib/request_options'

class RequestOptionsTest < Minitest::Test
  def setup
    @client = HTTParty::RequestOptions.new
  end

  def test_merges_default_headers
    @client.headers('accept' => 'application/json', 'x-env' => 'test')
    options = { headers: { 'x-env' => 'prod' } }
    @client.process_headers(options)
    assert_equal({ 'accept' => 'application/json', 'x-env' => 'prod' }, options[:headers])
  end

  def test_converts_default_header_keys_to_string
    @client.headers(foo: 'application/json')
    options = { headers: { bar: 'example' } }
    @client.process_headers(options)
    assert_equal({ 'foo' => 'application/json', 'bar' => 'example' }, options[:headers])
  end

  def test_evaluates_dynamic_headers
    @client.headers('x-token' => -> { 'abc' })
    options = { headers: { 'x-id' => '1' } }
    @client.process_headers(options)
    assert_equal({ 'x-token' => 'abc', 'x-id' => '1' }, options[:headers])
  end

  def test_converts_header_keys_to_string_without_defaults
    options = { headers: { foo: 'application/json', bar: 'example' } }
    @client.process_headers(options)
    assert_equal({ 'foo' => 'application/json', 'bar' => 'example' }, options[:headers])
  end

  def test_evaluates_dynamic_headers_without_defaults
    options = { headers: { 'x-token' => -> { 'abc' } } }
    @client.process_headers(options)
    assert_equal({ 'x-token' => 'abc' }, options[:headers])
  end

  def test_no_headers_option
    options = {}
    @client.process_headers(options)
    assert_equal({}, options)
  end
end
