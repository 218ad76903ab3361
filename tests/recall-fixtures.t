#!/usr/bin/env perl
# recall-fixtures.t - data-driven retrieval fixtures (tests/fixtures/recall/*.test,
# format in tests/fixtures/recall/README.md): import each file's store into a
# fresh database with the real binary, run every case through
# `memscope recall --json --trace --audit` and check what the case expects.
#
# Needs $MEMSCOPE (absolute path of the binary; `make test` sets it). Perl
# core only (JSON::PP). Works in a temporary directory that it removes.
use strict;
use warnings;
use File::Basename qw(dirname basename);
use File::Spec;
use File::Temp qw(tempdir);
use JSON::PP;

my $M = $ENV{MEMSCOPE} or bail("set MEMSCOPE to the absolute path of the memscope binary");
-x $M or bail("MEMSCOPE=$M is not executable");
my $here = File::Spec->rel2abs(dirname(__FILE__));
my @files = sort glob("$here/fixtures/recall/*.test");
@files or bail("no fixtures in $here/fixtures/recall");
my $tmp = tempdir("memscope-fixtures-XXXXXX", TMPDIR => 1, CLEANUP => 1);
delete @ENV{qw(MEMSCOPE_DB MEMSCOPE_PROFILE)};
$ENV{HOME} = $tmp;
$ENV{XDG_DATA_HOME} = "$tmp/xdg";
# The small WordNet written for the tests (tests/data/wordnet), whether or
# not wordnet-base is installed: the evidence floor's kind rule reads it.
$ENV{MEMSCOPE_WORDNET} = "$here/data/wordnet";

my $n = 0;
my $failed = 0;
sub bail { print "Bail out! @_\n"; exit 1 }
sub ok {
    my ($cond, $name, @diag) = @_;
    $n++;
    $name =~ s/#/?/g;    # '#' would start a TAP directive
    print(($cond ? "" : "not ") . "ok $n - $name\n");
    unless ($cond) {
        $failed++;
        print "#   $_\n" for @diag;
    }
    return $cond;
}

# Run a command, capturing stdout and stderr; returns (status, out, err).
sub run {
    my @cmd = @_;
    my ($out, $err) = ("$tmp/out", "$tmp/err");
    my $pid = fork() // bail("fork: $!");
    if (!$pid) {
        open(STDIN, "<", "/dev/null");
        open(STDOUT, ">", $out);
        open(STDERR, ">", $err);
        exec { $cmd[0] } @cmd or exit 127;
    }
    waitpid($pid, 0);
    my $status = $? >> 8;
    local $/;
    open(my $o, "<", $out) or bail("cannot read $out");
    my $text = <$o>;
    open(my $e, "<", $err) or bail("cannot read $err");
    my $etext = <$e>;
    return ($status, $text, $etext);
}

# ---- parsing a fixture file ------------------------------------------------

# Returns (store lines, [cases]); each case {line, query, options [..],
# checks [[line, key, arg, value]]}.
sub parse {
    my ($file) = @_;
    open(my $fh, "<:encoding(UTF-8)", $file) or bail("cannot open $file: $!");
    my (@store, @cases, $mode, $case);
    while (my $l = <$fh>) {
        chomp $l;
        if ($l =~ /^\s*$/) {    # a blank line ends a block
            $mode = undef;
            $case = undef;
            next;
        }
        next if $l =~ /^#/;
        if (!$mode && $l eq "store") {
            $mode = "store";
        } elsif ($mode && $mode eq "store") {
            push @store, $l;
        } elsif ($l =~ /^query:\s?(.*)$/) {
            bail("$file:$.: a query inside a case (separate cases by a blank line)") if $case;
            $case = {line => $., query => $1, options => [], checks => []};
            push @cases, $case;
            $mode = "case";
        } elsif ($case && $l =~ /^options:\s*(.*)$/) {
            push @{$case->{options}}, split(' ', $1);
        } elsif ($case && $l =~ /^([a-z-]+)(?:\s+(\S+))?:\s*(.*?)\s*$/) {
            push @{$case->{checks}}, [$., $1, $2, $3];
        } else {
            bail("$file:$.: cannot read '$l' (see tests/fixtures/recall/README.md)");
        }
    }
    return (\@store, \@cases);
}

# ---- checks ------------------------------------------------------------------

sub ids_of { return map { $_->{id} } @{$_[0]{results}} }

sub position {    # 1-based position of id in the results, 0 when absent
    my ($j, $id) = @_;
    my @ids = ids_of($j);
    for my $i (0 .. $#ids) { return $i + 1 if $ids[$i] eq $id }
    return 0;
}

sub result {
    my ($j, $id) = @_;
    for my $r (@{$j->{results}}) { return $r if $r->{id} eq $id }
    return undef;
}

sub shown { return join(" ", map { "$_->{id}" } @{$_[0]{results}}) || "(none)" }

# Each returns (pass, description, diagnostics...).
my %check = (
    type => sub {
        my ($j, undef, $v) = @_;
        return ($j->{query_type} eq $v, "query_type $v", "got $j->{query_type}");
    },
    abstained => sub {
        my ($j, undef, $v) = @_;
        my $got = $j->{abstained} ? $j->{abstention_reason} : "no";
        return ($got eq $v, "abstained: $v", "got $got; results: " . shown($j));
    },
    top => sub {
        my ($j, $k, $v) = @_;
        my @miss = grep { my $p = position($j, $_); !$p || $p > $k } split(' ', $v);
        return (!@miss, "top $k holds $v", "missing: @miss; results: " . shown($j));
    },
    first => sub {
        my ($j, undef, $v) = @_;
        return (position($j, $v) == 1, "first is $v", "results: " . shown($j));
    },
    absent => sub {
        my ($j, $k, $v) = @_;
        my @there = grep { my $p = position($j, $_); $p && (!defined $k || $p <= $k) } split(' ', $v);
        return (!@there, "not in " . (defined $k ? "top $k" : "results") . ": $v",
                "present: @there; results: " . shown($j));
    },
    above => sub {
        my ($j, undef, $v) = @_;
        my ($a, $b) = split(' ', $v);
        my ($pa, $pb) = (position($j, $a), position($j, $b));
        return ($pa && (!$pb || $pa < $pb), "$a ranks above $b",
                "positions $a=$pa $b=$pb; results: " . shown($j));
    },
    results => sub {
        my ($j, undef, $v) = @_;
        my $got = scalar @{$j->{results}};
        return ($got == $v, "$v results", "got $got: " . shown($j));
    },
    channel => sub {
        my ($j, $ch, $v) = @_;
        my $c = $j->{channels}{$ch} or return (0, "channel $ch exists", "no such channel");
        my @want = split(' ', $v);
        my @bad;
        for my $w (@want) {
            if ($w eq "active") { push @bad, "inactive ($c->{reason})" unless $c->{active} }
            elsif ($w eq "inactive") { push @bad, "active" if $c->{active} }
            elsif ($w eq "nonempty") { push @bad, "no candidates" unless $c->{candidates} > 0 }
            elsif ($w eq "empty") { push @bad, "$c->{candidates} candidates" if $c->{candidates} }
            else { push @bad, "reason " . ($c->{reason} // "none") unless ($c->{reason} // "") eq $w }
        }
        return (!@bad, "channel $ch: $v", @bad);
    },
    "first-stage" => sub {    # channel CH's account of the first stage holds TEXT, or has none
        my ($j, $ch, $v) = @_;
        my $c = $j->{channels}{$ch} or return (0, "channel $ch exists", "no such channel");
        my $got = $c->{first_stage};
        return (!defined $got, "channel $ch has no first_stage", "got '" . ($got // "") . "'")
            if $v eq "none";
        return (defined $got && index($got, $v) >= 0, "channel ${ch}'s first_stage says '$v'",
                "got '" . ($got // "none") . "'");
    },
    "ranked-by" => sub {
        my ($j, $id, $v) = @_;
        my $r = result($j, $id) or return (0, "$id ranked by $v", "$id not returned: " . shown($j));
        my @miss = grep { !$r->{trace}{channels}{$_} } split(' ', $v);
        return (!@miss, "$id ranked by $v", "not by @miss");
    },
    "not-ranked-by" => sub {
        my ($j, $id, $v) = @_;
        my $r = result($j, $id) or return (0, "$id not ranked by $v", "$id not returned: " . shown($j));
        my @by = grep { $r->{trace}{channels}{$_} } split(' ', $v);
        return (!@by, "$id not ranked by $v", "ranked by @by");
    },
    passed => sub {
        my ($j, $id, $v) = @_;
        my $r = result($j, $id) or return (0, "$id passed the floor by $v", "$id not returned: " . shown($j));
        my $got = $r->{trace}{floor}{passed_by} // "null";
        return ($got eq $v, "$id passed the floor by $v", "got $got");
    },
    rule => sub {    # the floor's rule and numbers in ID's trace hold TEXT
        my ($j, $id, $v) = @_;
        my ($r) = grep { $_->{id} eq $id } @{$j->{results}}, @{$j->{floor}{nearest_misses}};
        $r or return (0, "${id}'s floor rule says '$v'", "$id neither returned nor a nearest miss");
        my $got = $r->{trace}{floor}{rule} // "";
        return (index($got, $v) >= 0, "${id}'s floor rule says '$v'", "got '$got'");
    },
    cut => sub {    # ID is a nearest miss, cut by the floor
        my ($j, undef, $v) = @_;
        my @miss = map { $_->{id} } @{$j->{floor}{nearest_misses}};
        my @not = grep { my $id = $_; !grep { $_ eq $id } @miss } split(' ', $v);
        return (!@not, "cut by the floor: $v", "not among the nearest misses: @not (they are @miss)");
    },
    "no-support" => sub {
        my ($j, undef, $v) = @_;
        my $got = $j->{floor}{no_support} // "null";
        return ($got eq $v, "floor.no_support is '$v'", "got '$got'");
    },
    via => sub {
        my ($j, $id, $v) = @_;
        my $r = result($j, $id) or return (0, "$id passed via $v", "$id not returned: " . shown($j));
        my $got = $r->{trace}{floor}{via} // "none";
        return ($got eq $v, "$id passed via $v", "got $got");
    },
    entity => sub {
        my ($j, $id, $v) = @_;
        my $r = result($j, $id) or return (0, "$id entity $v", "$id not returned: " . shown($j));
        my $eg = $r->{trace}{entity_graph};
        my $got = join(" ", ($eg->{speaker_named} ? "speaker" : ()), ($eg->{entity_named} ? "mention" : ())) || "none";
        return ($got eq $v, "$id entity-graph: $v", "got $got");
    },
    adjusted => sub {
        my ($j, $id, $v) = @_;
        my $r = result($j, $id) or return (0, "$id adjusted by $v", "$id not returned: " . shown($j));
        my %by = map { $_->{name} => 1 } @{$r->{trace}{adjustments}};
        my @want = split(' ', $v);
        my @bad = grep { !$by{$_} } @want;
        return (!@bad, "$id adjusted by $v", "adjustments: " . (join(" ", sort keys %by) || "none"));
    },
    "not-adjusted" => sub {
        my ($j, $id, $v) = @_;
        my $r = result($j, $id) or return (0, "$id not adjusted by $v", "$id not returned: " . shown($j));
        my %by = map { $_->{name} => 1 } @{$r->{trace}{adjustments}};
        my @bad = grep { $by{$_} } split(' ', $v);
        return (!@bad, "$id not adjusted by $v", "adjusted by @bad");
    },
    dates => sub {
        my ($j, undef, $v) = @_;
        my $got = join(" ", @{$j->{analysis}{dates}}) || "none";
        return ($got eq $v, "dates $v", "got $got");
    },
);

# ---- running ---------------------------------------------------------------------

for my $file (@files) {
    my $name = basename($file);
    my ($store, $cases) = parse($file);
    my $db = "$tmp/$name.db";
    my $jsonl = "$tmp/$name.jsonl";
    open(my $fh, ">:encoding(UTF-8)", $jsonl) or bail("cannot write $jsonl");
    print $fh "$_\n" for @$store;
    close $fh;
    my ($st, $out, $err) = run($M, "import", "--db", $db, $jsonl);
    ok($st == 0, "$name: the store imports (" . scalar(@$store) . " memories)", split /\n/, $err)
        or next;
    for my $c (@$cases) {
        my $where = "$name:$c->{line}";
        my $q = $c->{query};
        my @cmd = ($M, "recall", "--db", $db, "--json", "--trace", "--audit", @{$c->{options}}, "--", $q);
        ($st, $out, $err) = run(@cmd);
        my $j = eval { decode_json($out) };
        ok($st == 0 && $j && $j->{score_contract_version} eq "2",
           "$where '$q': recall --audit exits 0 with a v2 response", "exit $st", split /\n/, $err)
            or next;
        for my $k (@{$c->{checks}}) {
            my ($line, $key, $arg, $value) = @$k;
            my $fn = $check{$key} or bail("$name:$line: unknown check '$key'");
            my ($pass, $what, @diag) = $fn->($j, $arg, $value);
            ok($pass, "$name:$line '$q': $what", @diag);
        }
    }
}
print "1..$n\n";
exit($failed ? 1 : 0);
