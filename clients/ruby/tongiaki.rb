#!/usr/bin/env ruby
# frozen_string_literal: true

# A command-line client for the Tongiaki game server in Ruby, built from proto/
# alone with Debian's ruby-grpc (`make ruby-client` installs it and generates
# the code into clients/ruby/gen).
#
#   ruby clients/ruby/tongiaki.rb list   [--state open|active|finished]
#   ruby clients/ruby/tongiaki.rb create --seats yellow,red [--bots red] [--auto-start]
#   ruby clients/ruby/tongiaki.rb join   GAME [--colour red] [--name NAME]   prints the seat token
#   ruby clients/ruby/tongiaki.rb start  GAME --token TOKEN
#   ruby clients/ruby/tongiaki.rb watch  GAME [--after SEQUENCE]
#   ruby clients/ruby/tongiaki.rb play   GAME --token TOKEN [--seed N] [--start]
#
# Every command takes --server HOST:PORT (default: $TONGIAKI_SERVER, else
# localhost:50051, where `make run` starts the game server). `watch` prints one
# JSON line per event and resumes after a dropped stream from the last sequence
# it saw. `play` acts for the seat of TOKEN (seeded, uniform among the offered
# options), one JSON line per action; it waits for the start (with --start it
# starts the game once every seat is taken) and stops when the game is over,
# or when its seat is given up or taken over by a bot. A decision whose outcome
# is unknown (UNAVAILABLE, or past its 10 s deadline) is sent again with its
# request id for up to 30 s, so it is applied once (the retry rules of
# docs/server.md).

require 'json'
require 'securerandom'

GEN = File.join(__dir__, 'gen')
unless File.exist?(File.join(GEN, 'tongiaki', 'v1', 'game_service_services_pb.rb'))
  warn 'the generated code is missing: run `make ruby-client` first'
  exit 2
end
$LOAD_PATH.unshift(GEN)
require 'grpc'
require 'tongiaki/v1/game_service_services_pb'

module Tongiaki
  COLOURS = %w[YELLOW ORANGE RED GREEN BLUE PURPLE].freeze
  STATES = { 'open' => :GAME_STATE_OPEN, 'active' => :GAME_STATE_ACTIVE,
             'finished' => :GAME_STATE_FINISHED }.freeze
  # Failures after which a watch resumes from the last sequence it saw.
  RETRYABLE = [GRPC::Core::StatusCodes::UNAVAILABLE, GRPC::Core::StatusCodes::ABORTED,
               GRPC::Core::StatusCodes::CANCELLED].freeze

  # Calls refused with UNAVAILABLE (nothing done, or OUTCOME_UNKNOWN: done or not)
  # are sent again as they were, request id included (the retry rules of docs/server.md);
  # past the channel's five tries a decision goes on being sent (see `change`).
  CHANNEL_ARGS = {
    'grpc.enable_retries' => 1,
    'grpc.service_config' => JSON.generate(
      methodConfig: [{ name: [{ service: 'tongiaki.v1.GameService' }],
                       retryPolicy: { maxAttempts: 5, initialBackoff: '0.1s', maxBackoff: '2s',
                                      backoffMultiplier: 2, retryableStatusCodes: ['UNAVAILABLE'] } }]
    )
  }.freeze

  # A mistake on the command line (exit status 2).
  class Usage < StandardError; end

  module_function

  def colour(text)
    bare = text.to_s.upcase.delete_prefix('COLOUR_')
    raise Usage, "#{text} is not a colour (#{COLOURS.join(', ').downcase})" unless COLOURS.include?(bare)

    :"COLOUR_#{bare}"
  end

  # The reason code of a refusal (the ErrorInfo in grpc-status-details-bin).
  def reason(error)
    details = error.respond_to?(:metadata) ? error.metadata['grpc-status-details-bin'] : nil
    return nil unless details

    text = details.b
    at = text.index('google.rpc.ErrorInfo')
    text[(at ? at + 20 : 0)..][/[A-Z][A-Z_]{2,}/]
  end

  def auth(token)
    token ? { metadata: { 'authorization' => "Bearer #{token}" } } : {}
  end

  # Seconds a change's call may take before it is given up (DEADLINE_EXCEEDED).
  CALL_SECONDS = 10
  # Seconds a change of unknown outcome is sent again for (a node's death is taken
  # over within seconds; a database restart may take more).
  PATIENCE = 30
  # Refusals after which a change may have been applied, or not: UNAVAILABLE (the
  # channel's own tries ran out, or OUTCOME_UNKNOWN) and DEADLINE_EXCEEDED.
  UNKNOWN_OUTCOME = [GRPC::Core::StatusCodes::UNAVAILABLE, GRPC::Core::StatusCodes::DEADLINE_EXCEEDED].freeze

  # A change that carries a request id (create_game, join_game, start_game,
  # submit_action, take_back, send_message), as the retry rules of docs/server.md say: while its outcome is unknown it is sent
  # again, the same request, for `patience` seconds (waits of 0.1 s doubling to 2 s),
  # so it is applied once; its answer is the entry it wrote. `on_retry` is called
  # with each refusal before the request goes again.
  def change(stub, method, request, token, seconds: CALL_SECONDS, patience: PATIENCE, on_retry: nil)
    clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
    last = clock.call + patience
    wait = 0.1
    loop do
      begin
        return stub.public_send(method, request, deadline: Time.now + seconds, **auth(token))
      rescue GRPC::BadStatus => e
        raise unless UNKNOWN_OUTCOME.include?(e.code) && clock.call + wait <= last

        on_retry&.call(e)
      end
      sleep(wait)
      wait = [wait * 2, 2.0].min
    end
  end

  # One JSON object per event of a log entry, as the Node client prints them.
  def describe(entry)
    change = entry.change
    if change == :action_applied
      entry.action_applied.events.map do |event|
        { sequence: entry.sequence, kind: event.kind.to_s, data: event[event.kind.to_s].to_h }
      end
    else
      [{ sequence: entry.sequence, kind: change.to_s, data: entry[change.to_s].to_h }]
    end
  end

  # Watch `name`, calling the block with [:snapshot, snapshot] and [:entry, entry];
  # after a dropped stream, resume after the last sequence seen. The block returns
  # :stop to end the watch. `drop_every` drops the stream every n messages (tests).
  def follow(stub, name, token: nil, after: nil, exclude_own: false, drop_every: 0)
    last = after
    attempt = 0
    loop do
      request = V1::WatchGameRequest.new(name: name, exclude_own_actions: exclude_own)
      request.after_sequence = last unless last.nil?
      op = stub.watch_game(request, return_op: true, **auth(token))
      received = 0
      dropped = false
      begin
        # A block that returns :stop leaves the method; `ensure` ends the call then.
        op.execute.each do |message|
          attempt = 0
          if message.snapshot
            last = message.snapshot.sequence
            return last if yield(:snapshot, message.snapshot) == :stop
          end
          message.entries.each do |entry|
            next if !last.nil? && entry.sequence <= last

            last = entry.sequence
            return last if yield(:entry, entry) == :stop
          end
          last = message.sequence if message.caught_up && message.sequence > (last || 0)
          received += 1
          next unless drop_every.positive? && (received % drop_every).zero?

          dropped = true
          op.cancel
          break
        end
        return last unless dropped
      rescue GRPC::BadStatus => e
        raise unless RETRYABLE.include?(e.code)

        attempt += 1
        sleep([0.05 * attempt, 1.0].min)
      ensure
        op.cancel unless dropped
      end
    end
  end

  # Play the seat of `token` until the game is over or the seat is lost.
  def play(stub, name, token, seed: 1, start: false)
    rng = Random.new(seed)
    first = stub.get_game(V1::GetGameRequest.new(name: name), **auth(token)).snapshot
    me = first.view&.viewer
    sequence = nil
    decision = nil
    ended = nil
    learn = lambda do
      me = stub.get_game(V1::GetGameRequest.new(name: name), **auth(token)).snapshot.view&.viewer if me.nil?
    end
    try_start = lambda do
      return unless start

      snapshot = stub.get_game(V1::GetGameRequest.new(name: name)).snapshot
      return unless snapshot.game.state == :GAME_STATE_OPEN && snapshot.game.seats.all?(&:occupied)

      begin
        change(stub, :start_game, V1::StartGameRequest.new(name: name, request_id: SecureRandom.hex(12)), token)
      rescue GRPC::BadStatus => e
        raise unless %w[GAME_ALREADY_STARTED SEATS_OPEN].include?(reason(e))
      end
    end
    act = lambda do
      learn.call if decision && me.nil?
      while decision && decision.player == me && ended.nil?
        option = decision.options[rng.rand(decision.options.length)]
        request = V1::SubmitActionRequest.new(name: name, sequence: sequence,
                                              request_id: SecureRandom.hex(12), action: option)
        begin
          entry = change(stub, :submit_action, request, token).entry
        rescue GRPC::Aborted, GRPC::FailedPrecondition, GRPC::Unauthenticated
          return # stale, taken back, or the seat was lost: the stream brings what changed
        end
        puts JSON.generate(sequence: entry.sequence, submitted: option.act.to_s)
        $stdout.flush
        sequence = entry.sequence
        decision = entry.action_applied.decision
      end
    end
    follow(stub, name, token: token, exclude_own: true) do |kind, item|
      if kind == :snapshot
        sequence = item.sequence
        if item.view
          me = item.view.viewer == :COLOUR_UNSPECIFIED ? me : item.view.viewer
          decision = item.view.decision
        else
          try_start.call
        end
      else
        next if !sequence.nil? && item.sequence <= sequence

        sequence = item.sequence
        case item.change
        when :action_applied then decision = item.action_applied.decision
        when :game_started then decision = item.game_started.view.decision
        when :action_taken_back then decision = item.action_taken_back.view.decision
        when :seat_joined then try_start.call
        when :seat_left then ended = 'seat_left' if item.seat_left.colour == me
        when :seat_taken_over then ended = 'taken_over' if item.seat_taken_over.colour == me
        when :game_stopped then decision = nil # the server stopped the game: nobody decides
        end
      end
      next :stop if ended

      act.call
      ended ? :stop : nil
    end
    game = stub.get_game(V1::GetGameRequest.new(name: name)).snapshot
    over = game.game.state == :GAME_STATE_FINISHED
    # A game the server stopped (game.game.stopped: its reason and rounds) has no results.
    over_as = game.game.stopped ? 'game_stopped' : 'game_over'
    results = (game.game.results.empty? ? game.view&.result.to_a : game.game.results).map(&:to_h)
    { done: true, colour: me.to_s, state: game.game.state.to_s,
      end: ended || (over ? over_as : 'stream_ended'), results: results }
  end

  def options(argv)
    positional = []
    named = {}
    flags = %w[auto-start start]
    i = 0
    while i < argv.length
      arg = argv[i]
      if !arg.start_with?('--')
        positional << arg
      elsif flags.include?(arg[2..])
        named[arg[2..]] = true
      else
        raise Usage, "#{arg} needs a value" if i + 1 >= argv.length

        named[arg[2..]] = argv[i + 1]
        i += 1
      end
      i += 1
    end
    [positional, named]
  end

  def main(argv)
    command, *rest = argv
    positional, named = options(rest)
    commands = %w[list create join start watch play]
    raise Usage, "usage: tongiaki.rb #{commands.join('|')} ... (see the file's header)" unless commands.include?(command)

    game = positional[0]
    raise Usage, "#{command} needs a game name, games/ID" if %w[join start watch play].include?(command) && !game&.start_with?('games/')
    raise Usage, "#{command} needs --token TOKEN (printed by join)" if %w[start play].include?(command) && !named['token']

    server = named['server'] || ENV['TONGIAKI_SERVER'] || 'localhost:50051'
    stub = V1::GameService::Stub.new(server, :this_channel_is_insecure, timeout: nil,
                                                                        channel_args: CHANNEL_ARGS)
    out = ->(value) { puts(value.is_a?(String) ? value : JSON.generate(value)) || $stdout.flush }
    case command
    when 'list'
      state = named['state'] ? STATES[named['state']] : :GAME_STATE_UNSPECIFIED
      raise Usage, '--state is open, active or finished' if state.nil?

      token = ''
      loop do
        page = stub.list_games(V1::ListGamesRequest.new(page_size: 100, page_token: token, state: state))
        page.games.each do |g|
          out.call(name: g.name, state: g.state.to_s, seats: g.seats.map { |s| [s.colour.to_s, s.occupied] })
        end
        token = page.next_page_token
        break if token.empty?
      end
    when 'create'
      raise Usage, 'create needs --seats, e.g. --seats yellow,red' unless named['seats']

      bots = named['bots'].to_s.split(',').map { |c| V1::BotSeat.new(colour: colour(c)) }
      settings = V1::GameSettings.new(display_name: named['name'].to_s, auto_start: named['auto-start'] == true,
                                      bots: bots)
      request = V1::CreateGameRequest.new(seats: named['seats'].split(',').map { |c| colour(c) },
                                          settings: settings, request_id: SecureRandom.hex(12))
      created = change(stub, :create_game, request, nil)
      out.call(created.game.name)
    when 'join'
      wanted = named['colour'] ? colour(named['colour']) : :COLOUR_UNSPECIFIED
      request = V1::JoinGameRequest.new(name: game, colour: wanted, display_name: named['name'] || 'ruby',
                                        request_id: SecureRandom.hex(12))
      joined = change(stub, :join_game, request, nil)
      out.call(joined.seat_token)
      warn "joined #{game} as #{joined.colour}"
    when 'start'
      request = V1::StartGameRequest.new(name: game, request_id: SecureRandom.hex(12))
      started = change(stub, :start_game, request, named['token'])
      out.call(name: started.game.name, state: started.game.state.to_s)
    when 'watch'
      after = named['after']&.to_i
      follow(stub, game, after: after, drop_every: named['drop-every'].to_i) do |kind, item|
        if kind == :snapshot
          out.call(sequence: item.sequence, kind: 'snapshot', state: item.game.state.to_s)
        else
          describe(item).each { |line| out.call(line) }
        end
        nil
      end
    when 'play'
      out.call(play(stub, game, named['token'], seed: (named['seed'] || 1).to_i, start: named['start'] == true))
    end
  end
end

if $PROGRAM_NAME == __FILE__
  begin
    Tongiaki.main(ARGV)
  rescue Tongiaki::Usage => e
    warn e.message
    exit 2
  rescue GRPC::BadStatus => e
    why = Tongiaki.reason(e)
    warn "#{why ? "#{why}: " : ''}#{e.details}"
    exit 1
  rescue Errno::EPIPE
    exit 141
  end
end
