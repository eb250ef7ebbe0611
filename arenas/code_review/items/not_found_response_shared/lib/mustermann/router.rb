# frozen_string_literal: true

module Mustermann
  # A tiny Rack-compatible router, after sinatra/mustermann's Mustermann::Router:
  # exact paths per verb, and a fallback app for everything else.
  class Router
    NOT_FOUND = [404, { "content-type" => "text/plain", "x-cascade" => "pass" }, ["Not found"]].freeze
    VERBS     = %w[GET POST PUT PATCH DELETE].freeze
    private_constant :NOT_FOUND, :VERBS

    def initialize(fallback = nil, &block)
      @routes   = VERBS.to_h { |verb| [verb, {}] }
      @fallback = fallback || ->(env) { NOT_FOUND.dup }
      instance_exec(&block) if block
    end

    # @return [Array] the Rack response: status, headers, body
    def call(env)
      verb = env["REQUEST_METHOD"] || "GET"
      verb = "GET" if verb == "HEAD"
      target = @routes.fetch(verb, {})[env["PATH_INFO"] || "/"]
      target ? target.call(env) : @fallback.call(env)
    end

    def route(verb, path, target = nil, &block)
      raise ArgumentError, "need to provide target or a block" unless target || block
      raise ArgumentError, "unknown verb: #{verb}" unless VERBS.include?(verb)
      @routes[verb][path] = target || block
    end

    VERBS.each do |verb|
      define_method(verb.downcase) { |path, target = nil, &block| route(verb, path, target, &block) }
    end
  end
end
