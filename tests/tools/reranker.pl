#!/usr/bin/perl
# A small external reranker for tests: scores each text by how many of the
# query's words (3+ letters) it contains, in memscope's JSON-lines protocol
# (docs/EMBEDDERS.md). RR_MODE=slow never answers; RR_MODE=short answers
# with one score too few; RR_MODE=huge answers +1e308 for a text with a
# query word and -1e308 for one without (max - min overflows a double);
# RR_MODE=closeout closes its stdout and keeps running.
use strict;
use warnings;
use JSON::PP;

$| = 1;
my $json = JSON::PP->new->canonical;
my $mode = $ENV{RR_MODE} // '';
while (my $line = <STDIN>) {
    my $req = eval { $json->decode($line) } or next;
    if ($mode eq 'slow') { sleep 30; next }
    if ($mode eq 'closeout') { close STDOUT; sleep 30; next }
    my %q = map { $_ => 1 } grep { length >= 3 } split /[^a-z0-9]+/, lc $req->{query};
    my @scores = map {
        my %seen;
        scalar grep { $q{$_} && !$seen{$_}++ } split /[^a-z0-9]+/, lc $_
    } @{$req->{texts}};
    pop @scores if $mode eq 'short';
    @scores = map { $_ ? 1e308 : -1e308 } @scores if $mode eq 'huge';
    print $json->encode({scores => \@scores}), "\n";
}
