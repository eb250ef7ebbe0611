# frozen_string_literal: true

require 'minitest/autorun'
require_relative '../lib/mustermann/router'

class RouterTest < Minitest::Test
  def env(method: "GET", path: "/")
    { "REQUEST_METHOD" => method, "PATH_INFO" => path }
  end

  def router
    Mustermann::Router.new do
      get("/hello") { |_env| [200, { "content-type" => "text/plain" }, ["Hello!"]] }
    end
  end

  def test_routes_by_verb_and_path
    assert_equal ["Hello!"], router.call(env(path: "/hello"))[2]
    assert_equal 200, router.call(env(method: "HEAD", path: "/hello"))[0]
  end

  def test_default_fallback
    status, headers, = router.call(env(path: "/missing"))
    assert_equal 404, status
    assert_equal "pass", headers["x-cascade"]
  end

  def test_default_fallback_can_be_modified_by_middleware
    response = router.call(env(path: "/missing"))
    refute response.frozen?
  end

  def test_custom_fallback
    custom = ->(_env) { [503, {}, ["down"]] }
    assert_equal 503, Mustermann::Router.new(custom).call(env)[0]
  end
end
