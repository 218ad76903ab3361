#!/usr/bin/perl
# A small external embedder for tests: bag of lower-case words hashed into
# 64 dimensions, spoken to in memscope's JSON-lines protocol
# (docs/EMBEDDERS.md). EMB_MODE makes it misbehave on purpose:
#   slow     never answer an embed request (tests the timeout)
#   baddim   answer with vectors of the wrong length
#   nan      answer with a string where a number belongs
#   garbage  answer with text that is not JSON
#   die      exit at the first embed request
#   closeout close its stdout at the first embed request and keep running
# EMB_MODEL=NAME states the model its vectors are of; EMB_DIM=N their
# dimension (default 64).
use strict;
use warnings;
use JSON::PP;

$| = 1;
my $json = JSON::PP->new->canonical;
my $mode = $ENV{EMB_MODE} // '';
my $dim = 0 + ($ENV{EMB_DIM} // 64);

sub embed {
    my ($text) = @_;
    my @v = (0) x $dim;
    for my $w (split /[^a-z0-9]+/, lc $text) {
        next if length $w < 3;
        my $h = 5381;
        $h = (($h * 33) ^ ord $_) & 0xffffffff for split //, $w;
        $v[$h % $dim] += 1;
    }
    return \@v;
}

while (my $line = <STDIN>) {
    my $req = eval { $json->decode($line) } or next;
    if ($req->{op} eq 'info') {
        my %info = (id => 'test-bow', dim => $dim);
        $info{model} = $ENV{EMB_MODEL} if defined $ENV{EMB_MODEL};
        print $json->encode(\%info), "\n";
        next;
    }
    exit 3 if $mode eq 'die';
    if ($mode eq 'closeout') { close STDOUT; sleep 30; next }
    if ($mode eq 'slow') { sleep 30; next }
    if ($mode eq 'garbage') { print "this is not json\n"; next }
    my @vecs = map { embed($_) } @{$req->{texts}};
    @vecs = map { [@$_[0 .. 9]] } @vecs if $mode eq 'baddim';
    $vecs[0][0] = 'x' if $mode eq 'nan' && @vecs;
    print $json->encode({vectors => \@vecs}), "\n";
}
